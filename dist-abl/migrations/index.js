"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.migrations = void 0;
const m001 = __importStar(require("./20261122_001_schema"));
const m002 = __importStar(require("./20261123_002_collect"));
const m003 = __importStar(require("./20261123_003_links_pages"));
const m004 = __importStar(require("./20261123_004_webhook_delivery"));
const m005 = __importStar(require("./20261123_005_analytics"));
const m006 = __importStar(require("./20261124_006_deep_pages"));
const m007 = __importStar(require("./20261124_007_key_notify"));
exports.migrations = [
    { name: '20261122_001_schema', ...m001 },
    { name: '20261123_002_collect', ...m002 },
    { name: '20261123_003_links_pages', ...m003 },
    { name: '20261123_004_webhook_delivery', ...m004 },
    { name: '20261123_005_analytics', ...m005 },
    { name: '20261124_006_deep_pages', ...m006 },
    { name: '20261124_007_key_notify', ...m007 },
];
//# sourceMappingURL=index.js.map