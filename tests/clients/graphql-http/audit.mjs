// The GraphQL-over-HTTP audit of graphql-http (`serverAudits`) against a running server's
// /graphql, as an authenticated agent. Fails on any audit that is not ok: a MUST (error), a
// SHOULD (warn) or a MAY (notice).
// Usage: node audit.mjs <graphql url> <api key>
import { serverAudits } from 'graphql-http';

const [url, key] = process.argv.slice(2);
if (!url || !key) {
  console.error('usage: node audit.mjs <graphql url> <api key>');
  process.exit(2);
}

// Every request of the audit, with the bearer added and nothing else changed.
function fetchFn(input, init = {}) {
  const headers = new Headers(init.headers || {});
  headers.set('authorization', `Bearer ${key}`);
  return fetch(input, { ...init, headers });
}

const audits = serverAudits({ url, fetchFn });
const results = await Promise.all(audits.map(({ fn }) => fn()));
let failed = 0;
for (const result of results) {
  if (result.status === 'ok') {
    console.log(`ok     ${result.id} ${result.name}`);
    continue;
  }
  failed += 1;
  let body = '';
  try {
    body = await result.response.text();
  } catch {
    body = '(no body)';
  }
  console.log(`${result.status.padEnd(6)} ${result.id} ${result.name}`);
  console.log(`       ${result.reason}`);
  console.log(`       status ${result.response.status}, ${result.response.headers.get('content-type')}: ${body.slice(0, 300)}`);
}
console.log(`graphql-http: ${results.length - failed} of ${results.length} audits ok, ${failed} not`);
process.exit(failed === 0 ? 0 : 1);
