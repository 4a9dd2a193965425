"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.presentQuestionAnalyticsA = presentQuestionAnalyticsA;
exports.presentPeriodA = presentPeriodA;
exports.presentUsageA = presentUsageA;
function presentQuestionAnalyticsA(q) {
    const out = { question_id: q.questionId, type: q.type, title: q.title, answered: q.answered, skipped: q.skipped };
    if (q.options !== undefined)
        out.options = q.options;
    if (q.type === 'nps') {
        Object.assign(out, { nps: q.nps, promoters: q.promoters, passives: q.passives, detractors: q.detractors, distribution: q.distribution });
    }
    if (q.type === 'rating' || q.type === 'number') {
        Object.assign(out, { mean: q.mean, min: q.min, max: q.max, distribution: q.distribution });
    }
    return out;
}
function presentPeriodA(p) {
    return { period_start: p.periodStart, responses: p.responses, average_score: p.averageScore, nps: p.nps };
}
function presentUsageA(u) {
    return { date: u.date, style: u.style, requests: u.requests };
}
//# sourceMappingURL=analytics.present.js.map