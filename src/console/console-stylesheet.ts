/**
 * The console's only stylesheet, served from its own address so the Content-Security-Policy can
 * forbid inline styles and every script. Readable at 375 px wide: one column, wrapping tables.
 */
export const consoleStylesheet = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.45; }
body { margin: 0 auto; max-width: 60rem; padding: 1rem; }
header nav, footer { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: center; }
a { color: #2459c9; }
@media (prefers-color-scheme: dark) { a { color: #8fb3ff; } }
table { border-collapse: collapse; width: 100%; display: block; overflow-x: auto; }
th, td { border-bottom: 1px solid #8884; padding: 0.35rem 0.5rem; text-align: left; vertical-align: top; }
.value { white-space: pre-wrap; overflow-wrap: anywhere; }
form.inline { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; margin: 0; }
input[type=text] { min-width: 10rem; max-width: 100%; padding: 0.3rem; }
button, .button { padding: 0.4rem 0.8rem; cursor: pointer; }
.notice { padding: 0.6rem 0.8rem; border-left: 4px solid #2459c9; background: #2459c91a; }
.problem { border-left-color: #c92424; background: #c924241a; }
.field { margin: 0.8rem 0; }
.field h3 { margin: 0 0 0.2rem; font-size: 1rem; }
`;
