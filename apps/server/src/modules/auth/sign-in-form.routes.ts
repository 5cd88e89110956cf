/**
 * The sign-in form without the app (decision 116): `POST /login-link` takes the prerendered
 * sign-in form of `/` as the browser posts it (url-encoded) when JavaScript is off or the app has
 * not started yet, asks for the login link exactly as `POST /api/auth/request-login` does (same
 * rules, same rate limits, the same answer whether the address is known or not), and answers a
 * page in plain HTML that says so. Its only effect is a login e-mail to the address typed, which
 * anyone may ask for anyway; a form on another website is still refused (Sec-Fetch-Site
 * cross-site), so no page elsewhere can spend a visitor's rate limit.
 */
import { requestLoginBody } from '@farmcam/contract';
import { escapeHtml, signInFormPath } from '@farmcam/contract/rules';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../errors.ts';
import { requestContext } from './auth.plugin.ts';
import type { MagicLinksService } from './magic-links.service.ts';

const stylesheetPath = `${signInFormPath}/page.css`;

/** The page's look, close to the portal's sign-in card (no script, no inline style: strict CSP). */
const stylesheet = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2a1f;background:#f5f7f4}
main{max-width:30rem;margin:0 auto;padding:2.5rem 1rem 4rem}
.logo{display:block;width:5rem;height:5rem;margin:0 auto 1rem}
h1{font-size:1.6rem;text-align:center;margin:0 0 1rem}
section{background:#fff;border:1px solid #d9ded9;border-radius:.75rem;padding:1.25rem}
.notice{margin:0 0 1rem;padding:.75rem 1rem;border-radius:.5rem;font-weight:600}
.notice.success{background:#e6f4ea;color:#1e5b2a}.notice.error{background:#fdecea;color:#8c1d18}
form{display:grid;gap:.75rem}label{display:grid;gap:.25rem;font-weight:600}
input{font:inherit;min-height:44px;padding:.55rem .65rem;border:1px solid #6b756d;border-radius:.4rem;width:100%}
button{font:inherit;font-weight:600;min-height:44px;background:#2f6b3a;color:#fff;border:0;border-radius:.5rem;padding:.55rem 1rem;cursor:pointer}
a{color:#2f6b3a}.back{margin:1rem 0 0;text-align:center}
`;

type Notice = { kind: 'success' | 'error'; text: string };

function page(notice: Notice, typed: string): string {
  const role = notice.kind === 'error' ? 'alert' : 'status';
  // After a success the field starts empty again; after a mistake it keeps what was typed.
  const value = notice.kind === 'error' ? ` value="${escapeHtml(typed)}"` : '';
  // A mistake is told to the field too, as the app's form does: a screen reader reads it there.
  const described = notice.kind === 'error' ? ' aria-invalid="true" aria-describedby="notice"' : '';
  return `<!doctype html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Sign in · Farmcam Portal</title>
<link rel="stylesheet" href="${stylesheetPath}">
<link rel="icon" href="/logo.svg" type="image/svg+xml">
</head>
<body>
<main>
<a href="/"><img class="logo" src="/logo.svg" alt="Farmcam Portal home" width="80" height="80"></a>
<h1>Sign in</h1>
<section>
<p class="notice ${notice.kind}" id="notice" role="${role}">${escapeHtml(notice.text)}</p>
<form method="post" action="${signInFormPath}">
<label>E-mail address<input name="email" type="text" inputmode="email" autocomplete="email" autocapitalize="none" spellcheck="false"${value}${described}></label>
<button type="submit">Send login link</button>
</form>
<p class="back"><a href="/">Back to Farmcam Portal</a></p>
</section>
</main>
</body>
</html>`;
}

const sendPage = (reply: FastifyReply, status: number, notice: Notice, typed = '') =>
  reply
    .code(status)
    // The answer holds what was typed: never stored by the browser or a proxy.
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(page(notice, typed));

export async function signInFormRoutes(
  app: FastifyInstance,
  { magicLinks }: { magicLinks: Pick<MagicLinksService, 'requestLogin'> },
) {
  // The browser posts the form url-encoded; only this route takes such bodies.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 4 * 1024 },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );

  app.get(stylesheetPath, async (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(stylesheet),
  );

  // The answer's address opened again later (a bookmark, the history): the sign-in page.
  app.get(signInFormPath, async (_request, reply) => reply.redirect('/', 303));

  app.post(signInFormPath, async (request, reply) => {
    if (request.headers['sec-fetch-site'] === 'cross-site') {
      return sendPage(reply, 403, {
        kind: 'error',
        text: 'Please ask for your login link on the Farmcam Portal sign-in page itself.',
      });
    }
    const form = (request.body ?? {}) as Record<string, unknown>;
    const typed = typeof form.email === 'string' ? form.email : '';
    const parsed = requestLoginBody.safeParse({ email: typed });
    if (!parsed.success) {
      const reason = parsed.error.issues[0]?.message ?? 'Please enter a valid e-mail address.';
      return sendPage(reply, 400, { kind: 'error', text: reason }, typed);
    }
    try {
      const { message } = await magicLinks.requestLogin(parsed.data.email, requestContext(request));
      return await sendPage(reply, 200, { kind: 'success', text: message });
    } catch (error) {
      if (error instanceof AppError && error.code === 'RATE_LIMITED') {
        for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
        return sendPage(reply, 429, { kind: 'error', text: error.message }, typed);
      }
      throw error;
    }
  });
}
