"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.listWorkspaces = listWorkspaces;
exports.getWorkspace = getWorkspace;
const errors_1 = require("../errors");
/** The given workspaces (a key's), ordered by name then id. */
async function listWorkspaces(db, ids) {
    if (ids.length === 0)
        return [];
    return (await db('workspaces').select('id', 'name', 'link').whereIn('id', ids).orderBy([
        { column: 'name', order: 'asc' },
        { column: 'id', order: 'asc' },
    ]));
}
/** @throws AppError resource_not_found */
async function getWorkspace(db, id) {
    const ws = (await db('workspaces').select('id', 'name', 'link').where('id', id).first());
    if (!ws)
        throw errors_1.errors.notFound('Workspace', id);
    return ws;
}
//# sourceMappingURL=workspaces.service.js.map