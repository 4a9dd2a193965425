"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DuplicateSubmission = void 0;
exports.isSubmissionTokenClaimed = isSubmissionTokenClaimed;
exports.claimSubmissionToken = claimSubmissionToken;
/** Thrown inside the submission's transaction when the token was already claimed (rolls it back). */
class DuplicateSubmission extends Error {
    constructor() {
        super('submission token already used');
        this.name = 'DuplicateSubmission';
    }
}
exports.DuplicateSubmission = DuplicateSubmission;
/** True when a response was already stored with this token (the quick check before validating). */
async function isSubmissionTokenClaimed(db, workspaceId, token) {
    return (await db('submission_tokens').first('token').where({ workspace_id: workspaceId, token })) !== undefined;
}
/**
 * Claims `token` for a response inside the submission's transaction. A concurrent claim of the same
 * token waits on the unique index until this one commits, then inserts nothing.
 * @throws DuplicateSubmission when the token is already claimed.
 */
async function claimSubmissionToken(trx, workspaceId, formId, token, responseId) {
    const claimed = await trx('submission_tokens')
        .insert({ token, workspace_id: workspaceId, form_id: formId, response_id: responseId })
        .onConflict(['workspace_id', 'token'])
        .ignore()
        .returning('token');
    if (claimed.length === 0)
        throw new DuplicateSubmission();
}
//# sourceMappingURL=submission-tokens.js.map