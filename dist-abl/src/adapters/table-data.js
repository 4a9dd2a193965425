"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.presentTableData = presentTableData;
function presentTableData(t) {
    if (t === null)
        return null;
    return { ...t.columns, row_id: t.rowId, _captured_at: t.capturedAt ? t.capturedAt.toISOString() : null };
}
//# sourceMappingURL=table-data.js.map