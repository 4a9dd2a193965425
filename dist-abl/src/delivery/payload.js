"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.renderData = renderData;
exports.renderPayload = renderPayload;
const present_1 = require("../adapters/style-a/present");
const present_2 = require("../adapters/style-b/present");
/** `data` of one event in one style. */
function renderData(resource, style) {
    switch (resource.kind) {
        case 'response':
            return style === 'A' ? (0, present_1.presentResponseA)(resource.response) : (0, present_2.presentResponseB)(resource.response);
        case 'row':
            return style === 'A' ? (0, present_1.presentRowA)(resource.row) : (0, present_2.presentRowB)(resource.row);
        case 'email_event':
            return style === 'A' ? (0, present_1.presentEmailEventA)(resource.event) : (0, present_2.presentEmailEventB)(resource.event);
        case 'row_deleted':
            return { row_id: resource.rowId, datatable_id: resource.datatableId };
        case 'test':
            return { endpoint_id: resource.endpointId, message: 'This is a test event from feedback-service.' };
    }
}
/** The JSON text sent (and signed) for one event to an endpoint of `style`. */
function renderPayload(event, style) {
    return JSON.stringify({
        id: event.id,
        type: event.type,
        timestamp: event.createdAt.toISOString(),
        workspace_id: event.workspaceId,
        data: renderData(event.resource, style),
    });
}
//# sourceMappingURL=payload.js.map