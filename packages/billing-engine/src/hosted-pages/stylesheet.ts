/** The hosted pages' one stylesheet, served at /billing-engine/assets/engine.css. */
export const hostedPagesStylesheet = `
:root{--green:#2f6b3a;--ink:#1d2a1f;--muted:#5b665d;--line:#d9ded9;--red:#b3261e;--bg:#f5f7f4}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
.banner{display:flex;justify-content:space-between;align-items:center;padding:.75rem 1.25rem;background:var(--green);color:#fff}
.brand{font-weight:700}.test-mode{background:#ffd866;color:#3d3000;border-radius:999px;padding:.1rem .6rem;font-size:.8rem;font-weight:600}
main{max-width:46rem;margin:0 auto;padding:1.25rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem}h2{font-size:1.15rem;margin:1.75rem 0 .5rem}
section{background:#fff;border:1px solid var(--line);border-radius:.75rem;padding:1rem 1.25rem;margin-bottom:1rem}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:.45rem .35rem;border-bottom:1px solid var(--line);vertical-align:middle}
td.amount,th.amount{text-align:right}
.notice{padding:.75rem 1rem;border-radius:.5rem;font-weight:600}.notice.error{background:#fdecea;color:var(--red)}.notice.success{background:#e6f4ea;color:#1e5b2a}
.status-paid{color:#1e5b2a;font-weight:600}.status-open,.status-expired{color:var(--red);font-weight:600}
form{margin:0}.card-form{display:grid;grid-template-columns:minmax(0,1fr);gap:.75rem;max-width:24rem}.row{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:.75rem}
label{display:grid;gap:.25rem;font-weight:600;font-size:.9rem}label.check{display:flex;gap:.5rem;align-items:center;font-weight:400}
.field{display:grid;gap:.25rem;align-content:start;min-width:0}.field-error{margin:0;color:var(--red);font-size:.9rem;font-weight:600}
input{font:inherit;padding:.55rem .65rem;border:1px solid #8a948c;border-radius:.4rem;width:100%;min-width:0}input[type=checkbox]{width:1.25rem;height:1.25rem;flex:none}
input[aria-invalid=true]{border:2px solid var(--red)}input::placeholder{color:#6b746d}
button,.button{font:inherit;font-weight:600;background:var(--green);color:#fff;border:0;border-radius:.5rem;padding:.55rem 1rem;cursor:pointer;text-decoration:none;display:inline-block}
button,.button{scroll-margin:.75rem}
button.secondary{background:#fff;color:var(--green);border:1px solid var(--green)}button.danger{background:#fff;color:var(--red);border:1px solid var(--red)}
.actions{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center}
.muted{color:var(--muted)}.total{font-size:1.6rem;font-weight:700;margin:.25rem 0}
.test-cards{margin-top:1rem;font-size:.9rem}.test-cards code{font-size:.95em}
a{color:var(--green)}
section>h2:first-child,section>p:first-child{margin-top:0}td{overflow-wrap:anywhere}td button,td a,td.amount,td.status-open,td.status-paid{white-space:nowrap;overflow-wrap:normal}
.visually-hidden{position:absolute!important;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);clip-path:inset(50%);white-space:nowrap;border:0}
@media (max-width:600px){main{padding:.75rem}section{padding:.85rem}h1{font-size:1.3rem}th.hide-narrow,td.hide-narrow{display:none}.card-form{max-width:none}.card-form button{width:100%}.total{font-size:1.35rem}}
`;
