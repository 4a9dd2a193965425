"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.urlWith = urlWith;
exports.single = single;
exports.cursorPage = cursorPage;
exports.wholeListA = wholeListA;
exports.offsetPage = offsetPage;
exports.wholeListB = wholeListB;
/** The request's absolute URL with some query parameters replaced (null removes one). */
function urlWith(req, changes) {
    const url = new URL(req.originalUrl, `${req.protocol}://${req.get('host') ?? 'localhost'}`);
    for (const [name, value] of Object.entries(changes)) {
        if (value === null)
            url.searchParams.delete(name);
        else
            url.searchParams.set(name, String(value));
    }
    return url.toString();
}
function single(req, data) {
    return { data, meta: {}, links: {}, request_id: req.requestId };
}
/** Style A list page: `meta {limit, has_more}`, cursor links. */
function cursorPage(req, items, limit, nextCursor, prevCursor) {
    return {
        data: items,
        meta: { limit, has_more: nextCursor !== null },
        links: {
            self: urlWith(req, {}),
            next: nextCursor === null ? null : urlWith(req, { cursor: nextCursor }),
            prev: prevCursor === null ? null : urlWith(req, { cursor: prevCursor }),
        },
        request_id: req.requestId,
    };
}
/** Style A list without pagination (the document gives it none): one page holding everything. */
function wholeListA(req, items) {
    return cursorPage(req, items, items.length, null, null);
}
/** Style B list page: `meta {total, page, limit, filtered_total}`, page links. */
function offsetPage(req, items, p) {
    const lastPage = Math.max(1, Math.ceil(p.filteredTotal / p.limit));
    return {
        data: items,
        meta: { total: p.total, page: p.page, limit: p.limit, filtered_total: p.filteredTotal },
        links: {
            self: urlWith(req, {}),
            next: p.page < lastPage ? urlWith(req, { page: p.page + 1 }) : null,
            prev: p.page > 1 ? urlWith(req, { page: Math.min(p.page - 1, lastPage) }) : null,
        },
        request_id: req.requestId,
    };
}
/** Style B list without pagination: one page holding everything. */
function wholeListB(req, items) {
    return offsetPage(req, items, { page: 1, limit: Math.max(1, items.length), total: items.length, filteredTotal: items.length });
}
//# sourceMappingURL=envelope.js.map