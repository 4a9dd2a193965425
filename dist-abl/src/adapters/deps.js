"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
//# sourceMappingURL=deps.js.map