"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DEMO_RESPONSE_COUNT = exports.DEMO_WORKSPACE_LINKS = void 0;
exports.prng = prng;
exports.buildDemoFixture = buildDemoFixture;
exports.seedDemo = seedDemo;
exports.createDemoKey = createDemoKey;
const create_api_key_1 = require("../api-keys/create-api-key");
const importer_1 = require("../import/importer");
/** Links (slugs) of the two demo workspaces. */
exports.DEMO_WORKSPACE_LINKS = ['acme', 'globex'];
exports.DEMO_RESPONSE_COUNT = 10_000;
const DAY_MS = 86_400_000;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** mulberry32: small, fast, good enough for demo and benchmark data; deterministic per seed, floats in [0, 1). */
function prng(seed) {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}
class Random {
    next;
    constructor(seed) {
        this.next = prng(seed);
    }
    int(min, max) {
        return min + Math.floor(this.next() * (max - min + 1));
    }
    chance(p) {
        return this.next() < p;
    }
    pick(items) {
        return items[Math.floor(this.next() * items.length)];
    }
    /** An index drawn with the given relative weights. */
    weighted(weights) {
        const total = weights.reduce((a, b) => a + b, 0);
        let r = this.next() * total;
        for (let i = 0; i < weights.length; i++) {
            r -= weights[i];
            if (r < 0)
                return i;
        }
        return weights.length - 1;
    }
    /** A few distinct items, in their original order. */
    some(items, min, max) {
        const n = this.int(min, Math.min(max, items.length));
        const chosen = new Set();
        while (chosen.size < n)
            chosen.add(Math.floor(this.next() * items.length));
        return [...chosen].sort((a, b) => a - b).map((i) => items[i]);
    }
    id(prefix) {
        let s = '';
        for (let i = 0; i < 16; i++)
            s += ALPHABET[Math.floor(this.next() * ALPHABET.length)];
        return `${prefix}_${s}`;
    }
}
// Realistic score shapes: NPS skews to 9-10 with a tail of detractors; ratings skew to 4-5.
const NPS_WEIGHTS = [2, 1, 1, 2, 2, 4, 6, 11, 17, 24, 30];
const RATING_WEIGHTS = [4, 7, 16, 36, 37];
const FIRST_NAMES = ['Anna', 'Ben', 'Chloé', 'David', 'Elena', 'Farid', 'Greta', 'Hiro', 'Ines', 'Jonas', 'Kara', 'Liam',
    'Maya', 'Noah', 'Olivia', 'Pavel', 'Quinn', 'Rosa', 'Sven', 'Tara', 'Umar', 'Vera', 'Will', 'Yara', 'Zoe'];
const LAST_NAMES = ['Andersen', 'Becker', 'Costa', 'Dubois', 'Evans', 'Fischer', 'García', 'Hansen', 'Ito', 'Jensen',
    'Kowalski', 'Lopez', 'Müller', 'Nakamura', 'Okafor', 'Peters', 'Rossi', 'Schmidt', 'Tanaka', 'Weber'];
const COMPANY_WORDS = ['Blue', 'North', 'Bright', 'Summit', 'Iron', 'Silver', 'Green', 'Rapid', 'Clear', 'Stone',
    'Nova', 'Pixel', 'Harbor', 'Maple', 'Orbit'];
const COMPANY_SUFFIXES = ['Labs', 'Systems', 'Logistics', 'Health', 'Media', 'Foods', 'Analytics', 'Works', 'Retail', 'Energy'];
const REASONS = {
    en: {
        promoter: ['Great product, saves us hours every week.', 'Support is fast and friendly.', 'Easy to set up and the reports are excellent.',
            'Reliable, we have never had downtime.', 'The integrations just work.', 'Best tool we have used for this.'],
        passive: ['Good overall, but a few features are missing.', 'Does the job; pricing could be clearer.', 'Fine, the UI feels a bit dated.',
            'Works well, but onboarding took a while.', 'Solid, but reporting is limited.'],
        detractor: ['Too expensive for what it offers.', 'Slow dashboard with larger accounts.', 'Support took days to answer.',
            'Missing SSO, which we need.', 'Export to CSV keeps failing.', 'Hard to find anything in the settings.'],
    },
    de: {
        promoter: ['Tolles Produkt, spart uns jede Woche Stunden.', 'Der Support ist schnell und freundlich.', 'Einfach einzurichten, sehr gute Berichte.',
            'Zuverlässig, nie Ausfälle gehabt.'],
        passive: ['Insgesamt gut, aber es fehlen ein paar Funktionen.', 'Erfüllt seinen Zweck; die Preise könnten klarer sein.',
            'Gut, aber die Einarbeitung hat gedauert.'],
        detractor: ['Zu teuer für den Funktionsumfang.', 'Das Dashboard ist bei großen Konten langsam.', 'Der Support hat tagelang nicht geantwortet.',
            'Uns fehlt SSO.'],
    },
    fr: {
        promoter: ['Excellent produit, il nous fait gagner des heures.', 'Le support est rapide et aimable.', 'Facile à installer, les rapports sont excellents.',
            'Fiable, jamais de panne.'],
        passive: ['Bien dans l’ensemble, mais il manque quelques fonctions.', 'Fait le travail ; les tarifs pourraient être plus clairs.',
            'Correct, mais la prise en main a été longue.'],
        detractor: ['Trop cher pour ce qu’il propose.', 'Le tableau de bord est lent avec de gros comptes.', 'Le support a mis des jours à répondre.',
            'Il nous manque le SSO.'],
    },
};
const CSAT_COMMENTS = ['Quick and helpful, thank you!', 'Solved on the first reply.', 'Took a while, but it was fixed.',
    'I had to explain the problem twice.', 'The agent really knew the product.', 'Still waiting for a real fix.'];
const PRODUCT_COMMENTS = ['Please add a dark mode.', 'Reports should be schedulable.', 'The mobile app needs offline mode.',
    'Would love webhooks for every event.', 'Custom fields would make this perfect.', 'The new dashboard is much faster, well done.'];
const EVENT_COMMENTS = ['Great speakers, well organised.', 'Too many sessions in parallel.', 'Loved the hands-on workshop.',
    'The venue was hard to reach.', 'Networking was the best part.'];
function npsCategory(score) {
    return score >= 9 ? 'promoter' : score >= 7 ? 'passive' : 'detractor';
}
function opts(...pairs) {
    return pairs.map(([id, value]) => ({ id, value }));
}
/**
 * Builds the demo fixture document (CONTRACT section 9). Pure: the same `now` and `seed` give the
 * same document. Response times lie in the 90 days before `now`; no API keys are included.
 */
function buildDemoFixture(now = new Date(), seed = 42) {
    const rnd = new Random(seed);
    const nowMs = now.getTime();
    const iso = (ms) => new Date(Math.round(ms)).toISOString();
    const day = (ms) => new Date(ms).toISOString().slice(0, 10);
    const setupMs = nowMs - 120 * DAY_MS;
    const acme = rnd.id('ws');
    const globex = rnd.id('ws');
    const workspaces = [
        { id: acme, name: 'Acme Inc.', link: 'acme', created_at: iso(setupMs - 30 * DAY_MS) },
        { id: globex, name: 'Globex', link: 'globex', created_at: iso(setupMs - 20 * DAY_MS) },
    ];
    // ---- forms
    const fNps = {
        id: rnd.id('frm'), workspace_id: acme, name: 'Customer NPS', default_language: 'en', created_at: iso(setupMs),
        questions: [
            { id: 'q_score', type: 'nps', title: 'How likely are you to recommend Acme to a friend or colleague?', required: true },
            { id: 'q_reason', type: 'text', title: 'What is the main reason for your score?' },
            { id: 'q_improve', type: 'single_choice', title: 'What should we improve first?', options: opts(['opt_performance', 'Performance'], ['opt_pricing', 'Pricing'], ['opt_support', 'Support'], ['opt_docs', 'Documentation'], ['opt_features', 'More features']) },
        ],
    };
    const fCsat = {
        id: rnd.id('frm'), workspace_id: acme, name: 'Support satisfaction (CSAT)', default_language: 'en', created_at: iso(setupMs + DAY_MS),
        questions: [
            { id: 'q_csat', type: 'rating', title: 'How satisfied are you with the support you received?', required: true },
            { id: 'q_resolved', type: 'single_choice', title: 'Was your issue resolved?', required: true, options: opts(['opt_yes', 'Yes'], ['opt_partly', 'Partly'], ['opt_no', 'No']) },
            { id: 'q_comment', type: 'text', title: 'Anything else you would like to tell us?' },
        ],
    };
    const fProduct = {
        id: rnd.id('frm'), workspace_id: acme, name: 'Product feedback', default_language: 'en', created_at: iso(setupMs + 2 * DAY_MS),
        questions: [
            { id: 'q_overall', type: 'rating', title: 'Overall, how would you rate Acme?', required: true },
            { id: 'q_area', type: 'single_choice', title: 'Which area do you use most?', required: true, options: opts(['opt_dashboard', 'Dashboard'], ['opt_reports', 'Reports'], ['opt_integrations', 'Integrations'], ['opt_mobile', 'Mobile app']) },
            { id: 'q_features', type: 'multiple_choice', title: 'Which features would you like next?', options: opts(['opt_dark_mode', 'Dark mode'], ['opt_sso', 'Single sign-on'], ['opt_webhooks', 'Webhooks'], ['opt_csv', 'CSV export'], ['opt_custom_fields', 'Custom fields']) },
            { id: 'q_feedback', type: 'text', title: 'Tell us more' },
            { id: 'q_contact', type: 'email', title: 'Where can we reach you about your feedback? (optional)' },
        ],
    };
    const fOnboarding = {
        id: rnd.id('frm'), workspace_id: acme, name: 'Onboarding survey', default_language: 'en', created_at: iso(setupMs + 3 * DAY_MS),
        questions: [
            { id: 'q_ease', type: 'rating', title: 'How easy was it to get started?', required: true },
            { id: 'q_start_date', type: 'date', title: 'When did you start using Acme?', required: true },
            { id: 'q_team_size', type: 'number', title: 'How many people on your team use Acme?', validation: { min: 1, max: 10000 } },
            { id: 'q_role', type: 'single_choice', title: 'What is your role?', options: opts(['opt_admin', 'Administrator'], ['opt_manager', 'Manager'], ['opt_developer', 'Developer'], ['opt_ic', 'Individual contributor']) },
        ],
    };
    const fIntl = {
        id: rnd.id('frm'), workspace_id: acme, name: 'Customer NPS (Europe)', default_language: 'en', created_at: iso(setupMs + 4 * DAY_MS),
        questions: [
            { id: 'q_score', type: 'nps', title: 'How likely are you to recommend us?', required: true },
            { id: 'q_reason', type: 'text', title: 'Why did you give this score?' },
            { id: 'q_channel', type: 'single_choice', title: 'How did you hear about us?', options: opts(['opt_search', 'Search engine'], ['opt_referral', 'Recommendation'], ['opt_social', 'Social media'], ['opt_event', 'Event'], ['opt_other', 'Other']) },
            { id: 'q_valued', type: 'multiple_choice', title: 'What do you value most?', options: opts(['opt_ease', 'Ease of use'], ['opt_price', 'Price'], ['opt_support', 'Support'], ['opt_reliability', 'Reliability']) },
        ],
        translations: {
            de: {
                q_score: { title: 'Wie wahrscheinlich ist es, dass Sie uns weiterempfehlen?' },
                q_reason: { title: 'Warum haben Sie diese Bewertung gegeben?' },
                q_channel: { title: 'Wie sind Sie auf uns aufmerksam geworden?', options: {
                        opt_search: 'Suchmaschine', opt_referral: 'Empfehlung', opt_social: 'Soziale Medien', opt_event: 'Veranstaltung', opt_other: 'Sonstiges'
                    } },
                q_valued: { title: 'Was schätzen Sie am meisten?', options: {
                        opt_ease: 'Benutzerfreundlichkeit', opt_price: 'Preis', opt_support: 'Support', opt_reliability: 'Zuverlässigkeit'
                    } },
            },
            fr: {
                q_score: { title: 'Quelle est la probabilité que vous nous recommandiez ?' },
                q_reason: { title: 'Pourquoi avez-vous donné cette note ?' },
                q_channel: { title: 'Comment nous avez-vous connus ?', options: {
                        opt_search: 'Moteur de recherche', opt_referral: 'Recommandation', opt_social: 'Réseaux sociaux', opt_event: 'Événement', opt_other: 'Autre'
                    } },
                q_valued: { title: 'Qu’appréciez-vous le plus ?', options: {
                        opt_ease: 'Facilité d’utilisation', opt_price: 'Prix', opt_support: 'Assistance', opt_reliability: 'Fiabilité'
                    } },
            },
        },
    };
    const fGlobexNps = {
        id: rnd.id('frm'), workspace_id: globex, name: 'Partner NPS', default_language: 'en', created_at: iso(setupMs + 5 * DAY_MS),
        questions: [
            { id: 'q_score', type: 'nps', title: 'How likely are you to recommend Globex as a partner?', required: true },
            { id: 'q_products', type: 'multiple_choice', title: 'Which Globex products do you use?', options: opts(['opt_widgets', 'Widgets'], ['opt_gadgets', 'Gadgets'], ['opt_cloud', 'Globex Cloud'], ['opt_consulting', 'Consulting']) },
            { id: 'q_reason', type: 'text', title: 'What is the main reason for your score?' },
        ],
    };
    const fGlobexEvent = {
        id: rnd.id('frm'), workspace_id: globex, name: 'Event feedback', default_language: 'en', created_at: iso(setupMs + 6 * DAY_MS),
        questions: [
            { id: 'q_rating', type: 'rating', title: 'How would you rate the event?', required: true },
            { id: 'q_session', type: 'single_choice', title: 'Which session did you like most?', options: opts(['opt_keynote', 'Keynote'], ['opt_workshop', 'Hands-on workshop'], ['opt_panel', 'Customer panel'], ['opt_roadmap', 'Roadmap preview']) },
            { id: 'q_comment', type: 'text', title: 'Any other comments?' },
        ],
    };
    const forms = [fNps, fCsat, fProduct, fOnboarding, fIntl, fGlobexNps, fGlobexEvent];
    // ---- datatables
    const person = () => {
        const first = rnd.pick(FIRST_NAMES);
        const last = rnd.pick(LAST_NAMES);
        return { name: `${first} ${last}`, email: `${first}.${last}`.toLowerCase().normalize('NFKD').replace(/[^a-z.]/g, '') };
    };
    const customerRows = [];
    for (let i = 1; i <= 300; i++) {
        const p = person();
        const plan = ['starter', 'pro', 'pro', 'business', 'enterprise'][rnd.weighted([30, 25, 15, 20, 10])];
        const signup = nowMs - rnd.int(130, 900) * DAY_MS;
        // Rows were imported from the CRM one by one when the table was set up.
        const created = setupMs - 10 * DAY_MS + i * 60_000;
        const data = {
            id: `cus_${String(i).padStart(4, '0')}`,
            name: p.name,
            email: `${p.email}${i}@example.com`,
            plan,
            seats: plan === 'starter' ? rnd.int(1, 5) : plan === 'pro' ? rnd.int(3, 25) : rnd.int(20, 500),
            active: rnd.chance(0.9),
            signup_date: day(signup),
        };
        const updated = rnd.chance(0.3) ? created + rnd.int(1, 100) * DAY_MS : created;
        customerRows.push({ row_id: rnd.id('row'), data, created_at: iso(created), updated_at: iso(Math.min(updated, nowMs - DAY_MS)) });
    }
    const accountRows = [];
    for (let i = 1; i <= 120; i++) {
        const company = `${rnd.pick(COMPANY_WORDS)} ${rnd.pick(COMPANY_SUFFIXES)}`;
        const tier = ['silver', 'gold', 'platinum'][rnd.weighted([50, 35, 15])];
        const created = setupMs - 10 * DAY_MS + i * 60_000;
        accountRows.push({
            row_id: rnd.id('row'),
            data: {
                id: `acc_${String(i).padStart(4, '0')}`,
                company,
                industry: rnd.pick(['Manufacturing', 'Retail', 'Healthcare', 'Finance', 'Education', 'Energy']),
                tier,
                mrr: tier === 'silver' ? rnd.int(5, 20) * 100 : tier === 'gold' ? rnd.int(20, 80) * 100 : rnd.int(80, 300) * 100,
                renewal_date: day(nowMs + rnd.int(10, 360) * DAY_MS),
                contact: { email: `partners+${i}@example.org`, region: rnd.pick(['EMEA', 'NA', 'APAC']) },
            },
            created_at: iso(created),
        });
    }
    const datatables = [
        {
            id: rnd.id('tbl'), workspace_id: acme, name: 'Customers', created_at: iso(setupMs - 10 * DAY_MS),
            fields: [
                { name: 'id', type: 'string' }, { name: 'name', type: 'string' }, { name: 'email', type: 'string' },
                { name: 'plan', type: 'string' }, { name: 'seats', type: 'number' }, { name: 'active', type: 'boolean' },
                { name: 'signup_date', type: 'date' },
            ],
            rows: customerRows,
        },
        {
            id: rnd.id('tbl'), workspace_id: globex, name: 'Accounts', created_at: iso(setupMs - 10 * DAY_MS),
            fields: [
                { name: 'id', type: 'string' }, { name: 'company', type: 'string' }, { name: 'industry', type: 'string' },
                { name: 'tier', type: 'string' }, { name: 'mrr', type: 'number' }, { name: 'renewal_date', type: 'date' },
                { name: 'contact', type: 'json' },
            ],
            rows: accountRows,
        },
    ];
    // ---- responses
    const plan = [
        [fNps, 3500], [fCsat, 1800], [fProduct, 1100], [fOnboarding, 700], [fIntl, 1400], [fGlobexNps, 1000], [fGlobexEvent, 500],
    ];
    const flows = new Map(forms.map((f) => [f.id, `flow_${f.name.toLowerCase().replace(/[^a-z]+/g, '_').replace(/^_|_$/g, '')}`]));
    const responses = [];
    const emailEvents = [];
    for (const [form, count] of plan) {
        const isGlobex = form.workspace_id === globex;
        const rowsOfWs = isGlobex ? accountRows : customerRows;
        const linkRate = form === fNps || form === fCsat ? 0.6 : form === fGlobexNps ? 0.7 : form === fIntl ? 0.3 : 0.1;
        for (let n = 0; n < count; n++) {
            // More responses recently (a growing product): the age is skewed towards now.
            const ageMs = Math.max(60_000, 90 * DAY_MS * (1 - Math.sqrt(rnd.next())));
            const createdMs = nowMs - ageMs;
            const lang = form === fIntl ? ['en', 'de', 'fr'][rnd.weighted([40, 35, 25])] : 'en';
            const answers = [];
            let score;
            const actionlists = [];
            if (form === fNps || form === fIntl || form === fGlobexNps) {
                score = rnd.weighted(NPS_WEIGHTS);
                const cat = npsCategory(score);
                answers.push({ question_id: 'q_score', value: score });
                if (form === fGlobexNps)
                    answers.push({ question_id: 'q_products', value: rnd.some(['opt_widgets', 'opt_gadgets', 'opt_cloud', 'opt_consulting'], 1, 3).map((id) => ({ id })) });
                if (rnd.chance(0.7))
                    answers.push({ question_id: 'q_reason', value: rnd.pick(REASONS[lang][cat]) });
                if (form === fNps && cat !== 'promoter') {
                    answers.push({ question_id: 'q_improve', value: { id: rnd.pick(['opt_performance', 'opt_pricing', 'opt_support', 'opt_docs', 'opt_features']) } });
                }
                if (form === fIntl) {
                    if (rnd.chance(0.8))
                        answers.push({ question_id: 'q_channel', value: { id: rnd.pick(['opt_search', 'opt_referral', 'opt_social', 'opt_event', 'opt_other']) } });
                    if (rnd.chance(0.6))
                        answers.push({ question_id: 'q_valued', value: rnd.some(['opt_ease', 'opt_price', 'opt_support', 'opt_reliability'], 1, 2).map((id) => ({ id })) });
                }
                if (cat === 'detractor') {
                    actionlists.push({ actionlist_id: 'al_detractor_follow_up', triggered_score: score, triggers: score <= 3 ? ['detractor', 'churn_risk'] : ['detractor'] });
                }
                else if (cat === 'promoter') {
                    actionlists.push({ actionlist_id: 'al_promoter_review_request', triggered_score: score, triggers: ['promoter'] });
                }
            }
            else if (form === fCsat) {
                score = rnd.weighted(RATING_WEIGHTS) + 1;
                answers.push({ question_id: 'q_csat', value: score });
                answers.push({ question_id: 'q_resolved', value: { id: score >= 4 ? (rnd.chance(0.9) ? 'opt_yes' : 'opt_partly') : rnd.pick(['opt_partly', 'opt_no']) } });
                if (rnd.chance(0.5))
                    answers.push({ question_id: 'q_comment', value: rnd.pick(CSAT_COMMENTS) });
                if (score <= 2)
                    actionlists.push({ actionlist_id: 'al_support_escalation', triggered_score: score, triggers: ['low_csat'] });
            }
            else if (form === fProduct) {
                score = rnd.weighted(RATING_WEIGHTS) + 1;
                answers.push({ question_id: 'q_overall', value: score });
                answers.push({ question_id: 'q_area', value: { id: rnd.pick(['opt_dashboard', 'opt_reports', 'opt_integrations', 'opt_mobile']) } });
                if (rnd.chance(0.75)) {
                    answers.push({ question_id: 'q_features', value: rnd.some(['opt_dark_mode', 'opt_sso', 'opt_webhooks', 'opt_csv', 'opt_custom_fields'], 1, 3).map((id) => ({ id })) });
                }
                if (rnd.chance(0.5))
                    answers.push({ question_id: 'q_feedback', value: rnd.pick(PRODUCT_COMMENTS) });
                if (rnd.chance(0.2))
                    answers.push({ question_id: 'q_contact', value: `${person().email}@example.com` });
            }
            else if (form === fOnboarding) {
                score = rnd.weighted(RATING_WEIGHTS) + 1;
                answers.push({ question_id: 'q_ease', value: score });
                answers.push({ question_id: 'q_start_date', value: day(createdMs - rnd.int(1, 60) * DAY_MS) });
                if (rnd.chance(0.8))
                    answers.push({ question_id: 'q_team_size', value: rnd.weighted([30, 30, 20, 12, 8]) * 10 + rnd.int(1, 9) });
                if (rnd.chance(0.9))
                    answers.push({ question_id: 'q_role', value: { id: rnd.pick(['opt_admin', 'opt_manager', 'opt_developer', 'opt_ic']) } });
            }
            else {
                score = rnd.weighted(RATING_WEIGHTS) + 1;
                answers.push({ question_id: 'q_rating', value: score });
                if (rnd.chance(0.85))
                    answers.push({ question_id: 'q_session', value: { id: rnd.pick(['opt_keynote', 'opt_workshop', 'opt_panel', 'opt_roadmap']) } });
                if (rnd.chance(0.4))
                    answers.push({ question_id: 'q_comment', value: rnd.pick(EVENT_COMMENTS) });
            }
            const row = rnd.chance(linkRate) ? rnd.pick(rowsOfWs) : undefined;
            const viaEmail = rnd.chance(1 / 3);
            const response = {
                id: rnd.id('rsp'),
                form_id: form.id,
                score,
                version: 1,
                language: lang,
                created_at: iso(createdMs),
                row_id: row?.row_id ?? null,
                respondent_email: null,
                email_id: null,
                answers,
                actionlists,
            };
            // A few customers changed plan since they answered: the captured row shows the old plan.
            if (row && !isGlobex && rnd.chance(0.05)) {
                response.table_data = { ...row.data, plan: row.data.plan === 'starter' ? 'pro' : 'starter' };
            }
            if (viaEmail) {
                const email = row
                    ? String(isGlobex ? row.data.contact.email : row.data.email)
                    : `${person().email}${rnd.int(1, 999)}@example.com`;
                const emailId = rnd.id('em');
                response.respondent_email = email;
                response.email_id = emailId;
                // Delivery events exist for the last three weeks only (when the mail provider was connected).
                if (ageMs < 21 * DAY_MS) {
                    emailEvents.push(...emailHistory(rnd, {
                        workspaceId: form.workspace_id, emailId, email, rowId: row?.row_id ?? null, formId: form.id,
                        flowId: flows.get(form.id), answeredMs: createdMs, nowMs, iso,
                    }));
                }
            }
            responses.push(response);
        }
    }
    responses.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
    emailEvents.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
    return { workspaces, forms, datatables, responses, email_events: emailEvents };
}
/** The events of one survey e-mail that was answered: send → (soft bounce) → delivery → open → click, then rarely unsubscribe or complaint. */
function emailHistory(rnd, c) {
    const events = [];
    const sentMs = c.answeredMs - rnd.int(10, 3 * 24 * 60) * 60_000;
    const add = (type, ms) => events.push({
        id: rnd.id('ev'), workspace_id: c.workspaceId, email_id: c.emailId, email: c.email, type,
        created_at: c.iso(Math.min(ms, c.nowMs - 1000)), row_id: c.rowId, form_id: c.formId, flow_id: c.flowId,
    });
    add('send', sentMs);
    let t = sentMs + rnd.int(1, 30) * 1000;
    if (rnd.chance(0.03)) {
        add('bounce', t); // soft bounce; the retry got through
        t += rnd.int(5, 60) * 60_000;
    }
    add('delivery', t);
    const openMs = t + (c.answeredMs - t) * rnd.next() * 0.8;
    if (rnd.chance(0.85))
        add('open', openMs);
    if (rnd.chance(0.7))
        add('click', openMs + (c.answeredMs - openMs) * rnd.next() * 0.5);
    if (rnd.chance(0.02))
        add('unsubscribe', c.answeredMs + rnd.int(1, 7 * 24 * 60) * 60_000);
    else if (rnd.chance(0.01))
        add('complaint', c.answeredMs + rnd.int(1, 3 * 24 * 60) * 60_000);
    return events;
}
/**
 * Loads the demo data set into an EMPTY database (no workspace at all); otherwise does nothing.
 * @returns `{seeded: false}` when the database already had a workspace, else the import summary.
 * @throws ImportError only if the database changed between the check and the write.
 * Spec: CONTRACT section 1 (`seed --demo`, `npm run demo`).
 */
async function seedDemo(db, opts = {}) {
    const any = await db('workspaces').first('id');
    if (any)
        return { seeded: false };
    const now = opts.now ?? new Date();
    const summary = await (0, importer_1.importFixture)(db, buildDemoFixture(now, opts.seed ?? 42), { now, onProgress: opts.onProgress });
    return { seeded: true, summary };
}
/**
 * Creates a key named "demo" with every scope on the demo workspaces (`acme`, then `globex`).
 * @returns the clear secret (shown once) and the workspace ids.
 * @throws Error when the demo workspaces are not in the database (seed first).
 */
async function createDemoKey(db) {
    const rows = await db('workspaces')
        .select('id', 'link')
        .whereIn('link', [...exports.DEMO_WORKSPACE_LINKS]);
    const workspaceIds = exports.DEMO_WORKSPACE_LINKS.map((link) => rows.find((r) => r.link === link)?.id).filter((id) => id !== undefined);
    if (workspaceIds.length !== exports.DEMO_WORKSPACE_LINKS.length) {
        throw new Error('the demo workspaces (links "acme" and "globex") are not in this database; seed the demo into an empty database first');
    }
    const key = await (0, create_api_key_1.createApiKey)(db, { name: 'demo', workspaceIds });
    return { id: key.id, secret: key.secret, workspaceIds };
}
//# sourceMappingURL=demo.js.map