"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.analyticsRange = analyticsRange;
exports.analyticsRouter = analyticsRouter;
/**
 * Style A analytics and migration-insight reads (CONTRACT section 15):
 * `{ws}/forms/{form_id}/analytics/questions`, `…/analytics/timeseries` and `{ws}/api-keys/{key_id}/usage`.
 * The two analytics paths are Style A paths that take the date parameters of either style.
 */
const express_1 = require("express");
const analytics_service_1 = require("../../core/analytics/analytics.service");
const usage_1 = require("../../core/api-keys/usage");
const errors_1 = require("../../core/errors");
const envelope_1 = require("../envelope");
const query_values_1 = require("../query-values");
const analytics_present_1 = require("./analytics.present");
/**
 * `created_after`/`created_before` or `start_date`/`end_date` (CONTRACT sections 7 and 15).
 * @throws AppError validation_error naming the parameters when both kinds are given, or for a bad date.
 */
function analyticsRange(req) {
    const a = ['created_after', 'created_before'].filter((n) => (0, query_values_1.str)(req, n) !== undefined);
    const b = ['start_date', 'end_date'].filter((n) => (0, query_values_1.str)(req, n) !== undefined);
    if (a.length > 0 && b.length > 0) {
        throw errors_1.errors.validation([...a, ...b].map((field) => ({
            location: 'query',
            field,
            message: `\`${field}\` cannot be combined with ${a.includes(field) ? b.join(', ') : a.join(', ')}.`,
        })), `Date parameters of both kinds in one request: ${[...a, ...b].join(', ')}; use created_after/created_before or start_date/end_date.`);
    }
    return a.length > 0 ? (0, query_values_1.createdRangeA)(req) : (0, query_values_1.createdRangeB)(req);
}
const INTERVALS = ['day', 'week', 'month'];
/** Routes mounted at `/api/v1/workspaces`. */
function analyticsRouter({ db }) {
    const r = (0, express_1.Router)();
    r.get('/:workspace_id/forms/:form_id/analytics/questions', async (req, res) => {
        const items = await (0, analytics_service_1.questionAnalytics)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'form_id'), analyticsRange(req));
        res.json((0, envelope_1.wholeListA)(req, items.map(analytics_present_1.presentQuestionAnalyticsA)));
    });
    r.get('/:workspace_id/forms/:form_id/analytics/timeseries', async (req, res) => {
        const interval = ((0, query_values_1.str)(req, 'interval') ?? 'day');
        if (!INTERVALS.includes(interval)) {
            throw errors_1.errors.invalid('query', 'interval', `\`interval\` must be day, week or month; got "${interval}".`);
        }
        const points = await (0, analytics_service_1.timeSeries)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'form_id'), analyticsRange(req), interval);
        res.json((0, envelope_1.wholeListA)(req, points.map(analytics_present_1.presentPeriodA)));
    });
    r.get('/:workspace_id/api-keys/:key_id/usage', async (req, res) => {
        const days = (0, query_values_1.int)(req, 'days', 1, 90, 30);
        const today = new Date().toISOString().slice(0, 10);
        const usage = await (0, usage_1.listKeyUsage)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'key_id'), days, today);
        res.json((0, envelope_1.wholeListA)(req, usage.map(analytics_present_1.presentUsageA)));
    });
    return r;
}
//# sourceMappingURL=analytics.routes.js.map