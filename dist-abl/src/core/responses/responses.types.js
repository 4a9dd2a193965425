"use strict";
/** Style-neutral response records (camelCase, Dates). Presenters turn them into Style A or B JSON. */
Object.defineProperty(exports, "__esModule", { value: true });
//# sourceMappingURL=responses.types.js.map