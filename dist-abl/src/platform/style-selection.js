"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.provisionalStyle = provisionalStyle;
exports.styleSelection = styleSelection;
const style_1 = require("./style");
function provisionalStyle() {
    return (req, res, next) => {
        const fixed = (0, style_1.pathStyle)(req.path);
        let style = fixed === 'A' || fixed === 'B' ? fixed : 'A';
        if (fixed !== 'A' && fixed !== 'B') {
            const h = req.get('X-API-Style')?.trim().toUpperCase();
            if (h === 'A' || h === 'B')
                style = h;
        }
        req.style = style;
        res.setHeader('X-API-Style', style);
        next();
    };
}
function styleSelection() {
    return (req, res, next) => {
        req.style = (0, style_1.selectStyle)(req.path, req.get('X-API-Style'), req.query, req.auth?.style ?? 'A');
        res.setHeader('X-API-Style', req.style);
        next();
    };
}
//# sourceMappingURL=style-selection.js.map