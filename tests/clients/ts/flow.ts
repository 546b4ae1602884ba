// The recommended agent flow through a TypeScript client generated from /openapi.json by
// @hey-api/openapi-ts (tests/clients/generated.sh generates it into target/, type-checks this file
// against it with tsc, and runs it). The SDK validates every success answer with the generated zod
// schemas; error answers are parsed here with the generated zod schemas of ErrorBody and
// ValidationErrorBody, made strict so that a key the document does not list fails too.
// Usage: node dist/flow.js BASE_URL
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import { createClient, type Client } from './client/client/index.js';
import {
  createApiKey,
  createCertificate,
  createEntry,
  createTerm,
  evaluateEntryDraft,
  getCertificate,
  getContextRubric,
  getEntity,
  getEntityProvenance,
  getEntry,
  getLedgerHead,
  getMe,
  getMessage,
  getPublicIndex,
  getTerm,
  listCertificates,
  listContextRubrics,
  listContributions,
  listMessages,
  markMessageRead,
  registerAgent,
  searchRecords,
  sendMessage,
  signTerm,
} from './client/sdk.gen.js';
import type { CreateEntryErrors, CreateEntryResponses, EntryCreate, SpaceTimeEntry } from './client/types.gen.js';
import { zCreateEntryResponse, zErrorBody, zValidationErrorBody } from './client/zod.gen.js';

const base = (process.argv[2] ?? '').replace(/\/$/, '');
assert.ok(base, 'usage: node dist/flow.js BASE_URL');
let answers = 0;

type Answer<T> = { data?: T; error?: unknown; response?: Response };

/** The validated body of a success answer with exactly `status`. */
function ok<T>(result: Answer<T>, status: number): T {
  answers += 1;
  assert.equal(result.response?.status, status, JSON.stringify(result.error));
  assert.ok(result.data !== undefined, 'no body');
  return result.data as T;
}

/** The body of an error answer with exactly `status`, parsed by the strict generated schema. */
function failed<S extends { strict(): { parse(value: unknown): unknown } }>(
  result: Answer<unknown>,
  status: number,
  schema: S,
): ReturnType<ReturnType<S['strict']>['parse']> {
  answers += 1;
  assert.equal(result.response?.status, status, JSON.stringify(result.data ?? result.error));
  return schema.strict().parse(result.error) as ReturnType<ReturnType<S['strict']>['parse']>;
}

function client(token?: string): Client {
  return createClient({ baseUrl: base, ...(token ? { auth: token } : {}) });
}

function entityEntry(name: string, source: string, latitude: number, longitude: number, phone: string): EntryCreate {
  return {
    entry_type: 'entity',
    latitude,
    longitude,
    observed_at_tstamp_utc: '2026-11-20T10:00:00Z',
    source_type: 'web_page',
    source_ref: source,
    idempotency_key: `web_page:${source}:entity::${name.toLowerCase().replaceAll(' ', '-')}`,
    score_confidence: '0.80',
    context: {
      display_name: name,
      phone,
      city: 'Manchester',
      country_code: 'GB',
      categories: ['bakery'],
      source_url: source,
      context_l1_common: {
        verification: {
          evidence_summary: "Name, phone and address on the bakery's contact page.",
          uncertainty: 'Opening hours not published.',
          source_url: source,
          observed_at: '2026-11-20T10:00:00Z',
        },
      },
    },
  };
}

async function processed(me: Client, id: string): Promise<SpaceTimeEntry> {
  for (let i = 0; i < 120; i += 1) {
    const entry = ok(await getEntry({ client: me, path: { entry_id: id } }), 200);
    if (entry.status !== 'pending') return entry;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`entry ${id} still pending after 30 s`);
}

async function main(): Promise<void> {
  const tag = randomUUID().slice(0, 8);
  const anonymous = client();

  const index = ok(await getPublicIndex({ client: anonymous }), 200);
  assert.match(index, /agent/i);

  // Register two agents: a publisher and the recipient of its message.
  const registered = ok(
    await registerAgent({
      client: anonymous,
      body: { agent_type: 'scraper', display_name: 'Generated TypeScript Client', agent_handle: `ts_${tag}` },
    }),
    201,
  );
  const other = ok(
    await registerAgent({ client: anonymous, body: { agent_type: 'api_agent', display_name: 'Generated TypeScript Peer' } }),
    201,
  );
  assert.equal(registered.agent.score_trust, '0.5');
  const me = client(registered.api_key);
  const peer = client(other.api_key);
  assert.equal(ok(await getMe({ client: me }), 200).id, registered.agent.id);
  // The key body is optional: none means the default scope.
  const extra = ok(await createApiKey({ client: me }), 201);
  assert.deepEqual(extra.key.scopes, ['space_time_entries:write']);

  // Rubrics, then search before publishing.
  const rubrics = ok(await listContextRubrics({ client: anonymous }), 200);
  assert.ok(['entity', 'listing', 'request'].every((t) => rubrics.rubrics.some((r) => r.entry_type === t)));
  const rubric = ok(await getContextRubric({ client: anonymous, path: { entry_type: 'entity' } }), 200);
  assert.equal(rubric.entry_type, 'entity');
  // A place, a name and a phone of this run's own: the matcher would rightly merge a second run's
  // bakery into the first's (the Python flow runs against the same server).
  const latitude = 53.4 + Math.random() * 0.2;
  const longitude = -2.35 + Math.random() * 0.2;
  const digits = () => String(Math.floor(Math.random() * 10000)).padStart(4, '0');
  const name = `Bakery ${tag}`;
  const before = ok(
    await searchRecords({
      client: anonymous,
      query: { query: name, latitude, longitude, radius_meters: 1000, canonical_type: 'entity' },
    }),
    200,
  );
  assert.ok(!before.results.some((r) => r.label === name));

  const source = `https://ancoats-${tag}.example/contact`;
  const draft = entityEntry(name, source, latitude, longitude, `+44 161 496 ${digits()}`);
  const verdict = ok(await evaluateEntryDraft({ client: anonymous, path: { entry_type: 'entity' }, body: draft }), 200);
  console.log(`typescript: rubric verdict ${verdict.verdict}`);

  // One entry as JSON, one with an attachment (multipart). The SDK function sends the first media
  // type of the operation (JSON); the form goes through the same generated client, typed by the
  // same generated response types and validated by the same generated schema.
  const entry = ok(await createEntry({ client: me, body: draft }), 201);
  assert.equal(entry.status, 'pending');
  assert.equal(entry.score_confidence, '0.80');
  const form = new FormData();
  const deli = entityEntry(`Delicatessen ${tag}`, `https://deli-${tag}.example/`, latitude + 0.003, longitude - 0.003, `+44 161 497 ${digits()}`);
  form.append('entry', JSON.stringify(deli));
  form.append('attachments', new Blob(['Seen on the shop front, 20 November 2026.'], { type: 'text/plain' }), 'notes.txt');
  const attached = ok(
    await me.post<CreateEntryResponses, CreateEntryErrors>({
      url: '/api/v1/space-time-entries',
      body: form,
      bodySerializer: null,
      headers: { 'Content-Type': null },
      security: [{ scheme: 'bearer', type: 'http' }],
      responseValidator: async (data) => await zCreateEntryResponse.parseAsync(data),
    }),
    201,
  );
  assert.equal(attached.attachments.length, 1);
  assert.equal(attached.attachments[0]?.media_type, 'text/plain');

  // Read back: the entry, its canonical record, the provenance and the contributions.
  const done = await processed(me, entry.id);
  assert.equal(done.status, 'processed', done.processing_reason ?? '');
  assert.equal(done.canonical_table, 'canonical.entities');
  assert.ok(done.canonical_id);
  const record = ok(await getEntity({ client: anonymous, path: { entity_id: done.canonical_id } }), 200);
  assert.equal(record.display_name, name);
  assert.equal(typeof record.score_confidence, 'string');
  const provenance = ok(await getEntityProvenance({ client: anonymous, path: { entity_id: record.id } }), 200);
  assert.deepEqual(provenance.contributions.map((c) => c.source_space_time_entry_id), [entry.id]);
  const links = ok(await listContributions({ client: anonymous, query: { space_time_entry_id: entry.id } }), 200);
  assert.equal(links[0]?.link_type, 'created');
  assert.equal(links[0]?.target_canonical_id, record.id);
  await processed(me, attached.id);
  const hits = ok(await searchRecords({ client: anonymous, query: { query: name } }), 200);
  assert.ok(hits.results.length > 0);

  // A message to the other agent, read there.
  const sent = ok(
    await sendMessage({
      client: me,
      body: {
        recipient_agent_id: other.agent.id,
        message_content: `Hello from ${name}`,
        target_schema: 'canonical',
        target_table: 'entities',
        target_id: record.id,
      },
    }),
    201,
  );
  const inbox = ok(await listMessages({ client: peer, query: { unread_only: true } }), 200);
  assert.deepEqual(inbox.map((m) => m.id), [sent.id]);
  assert.equal(ok(await getMessage({ client: peer, path: { message_id: sent.id } }), 200).read_at_tstamp_utc, null);
  const read = ok(await markMessageRead({ client: peer, path: { message_id: sent.id } }), 200);
  assert.ok(read.read_at_tstamp_utc);

  // Terms, a signature, a certificate, and the ledger.
  const term = ok(
    await createTerm({
      client: me,
      body: { title: `Deposit terms ${tag}`, terms_text: 'A deposit of 250 GBP.', currency_code: 'GBP', value_amount: '250.00' },
    }),
    201,
  );
  assert.equal(term.value_amount, '250.00');
  assert.equal(ok(await getTerm({ client: anonymous, path: { transaction_term_id: term.id } }), 200).id, term.id);
  const signature = ok(await signTerm({ client: me, body: { transaction_term_id: term.id, signature: 'base64:3q2+7w==' } }), 201);
  const certificate = ok(
    await createCertificate({
      client: me,
      body: { transaction_terms_signature_id: signature.id, currency_code: 'GBP', value_amount: 250.5 },
    }),
    201,
  );
  assert.equal(certificate.value_amount, '250.5');
  const mine = ok(await listCertificates({ client: anonymous, query: { agent_id: registered.agent.id } }), 200);
  assert.deepEqual(mine.map((c) => c.id), [certificate.id]);
  ok(await getCertificate({ client: anonymous, path: { certificate_id: certificate.id } }), 200);
  const head = ok(await getLedgerHead({ client: anonymous }), 200);
  assert.ok(head.ledger_seq >= certificate.ledger_seq);

  // Errors through the generated error schemas: 422, 404, 409 and 401.
  const invalid = failed(
    await createEntry({ client: me, body: { entry_type: 'entity', latitude: 95, longitude: 0 } }),
    422,
    zValidationErrorBody,
  );
  assert.deepEqual(invalid.detail.map((d) => d.loc), [['body', 'latitude']]);
  const missing = failed(await getEntry({ client: anonymous, path: { entry_id: randomUUID() } }), 404, zErrorBody);
  assert.equal(missing.code, 'NOT_FOUND');
  const again = failed(await createEntry({ client: me, body: draft }), 409, zErrorBody);
  assert.equal(again.code, 'CONFLICT');
  assert.equal(again.existing_id, entry.id);
  const refused = failed(await getMe({ client: client('str_not_a_key') }), 401, zErrorBody);
  assert.equal(refused.code, 'UNAUTHENTICATED');
  console.log(`typescript: the flow passed: ${answers} answers validated`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
