// tsc writes dist/; the page's own files (HTML, script, style) are copied beside the server that
// serves them: they are served as they are, with no inline script (the page's CSP forbids it).
import { cpSync } from "node:fs";

cpSync("src/page/assets", "dist/page/assets", { recursive: true });
