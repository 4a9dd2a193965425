"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.projectRoot = projectRoot;
/** The project root (the folder with package.json), found from this file in src/ or dist/src/. */
const node_fs_1 = __importDefault(require("node:fs"));
const node_path_1 = __importDefault(require("node:path"));
let root;
function projectRoot() {
    if (root)
        return root;
    let dir = __dirname;
    while (!node_fs_1.default.existsSync(node_path_1.default.join(dir, 'package.json')) || !node_fs_1.default.existsSync(node_path_1.default.join(dir, 'openapi'))) {
        const up = node_path_1.default.dirname(dir);
        if (up === dir)
            throw new Error('project root not found above ' + __dirname);
        dir = up;
    }
    root = dir;
    return dir;
}
//# sourceMappingURL=paths.js.map