// Talks to this server only: GraphQL at /graphql, search at /api/v1/search, tiles at /tiles.
// The operator key lives in this module's memory, never in storage, and goes only with
// operator requests.
import RECORD from './graphql/record.graphql';
import RECORD_AS_OF from './graphql/record_as_of.graphql';
import EXPAND_RECORD from './graphql/expand_record.graphql';
import EXPAND_ENTRY from './graphql/expand_entry.graphql';
import AGENT from './graphql/agent.graphql';
import AGENT_RECORDS from './graphql/agent_records.graphql';
import REVIEW_QUEUE from './graphql/review_queue.graphql';
import OPERATOR from './graphql/operator.graphql';
import RESOLVE_REVIEW from './graphql/resolve_review.graphql';
import MERGE_ENTITIES from './graphql/merge_entities.graphql';
import DISMISS_DUPLICATE from './graphql/dismiss_duplicate.graphql';

export const documents = {
  RECORD, RECORD_AS_OF, EXPAND_RECORD, EXPAND_ENTRY, AGENT, AGENT_RECORDS, REVIEW_QUEUE, OPERATOR,
  RESOLVE_REVIEW, MERGE_ENTITIES, DISMISS_DUPLICATE,
};

let operatorKey = null;

export function setOperatorKey(key) {
  operatorKey = key || null;
}

export function hasOperatorKey() {
  return operatorKey !== null;
}

export class ApiError extends Error {}

/** Runs a document; `operator` sends the operator key as the bearer. */
export async function graphql(document, variables = {}, { operator = false } = {}) {
  const headers = { 'content-type': 'application/json', accept: 'application/json' };
  if (operator) {
    if (!operatorKey) throw new ApiError('enter an operator key first');
    headers.authorization = `Bearer ${operatorKey}`;
  }
  const response = await fetch('/graphql', {
    method: 'POST',
    headers,
    body: JSON.stringify({ query: document, variables }),
  });
  let body;
  try {
    body = await response.json();
  } catch {
    throw new ApiError(`the server answered ${response.status}`);
  }
  if (!response.ok && !body.data) {
    throw new ApiError(typeof body.detail === 'string' ? body.detail : `the server answered ${response.status}`);
  }
  if (body.errors && body.errors.length) {
    throw new ApiError(body.errors.map((e) => e.message).join('; '));
  }
  return body.data;
}

/** GET /api/v1/search: the ranked hits for a text. */
export async function search(text, maxResults = 10) {
  const params = new URLSearchParams({ query: text, max_results: String(maxResults) });
  const response = await fetch(`/api/v1/search?${params}`, { headers: { accept: 'application/json' } });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = Array.isArray(body.detail) ? body.detail.map((d) => d.msg).join('; ') : body.detail;
    throw new ApiError(detail || `search answered ${response.status}`);
  }
  return body.results || [];
}

/** The same query, ready to run in the GraphiQL IDE this server ships. */
export function graphiqlUrl(document, variables) {
  const params = new URLSearchParams({ query: document, variables: JSON.stringify(variables, null, 2) });
  return `/graphql?${params}`;
}

/** The vector tile URL template with the map's filters. */
export function tileUrl(filters) {
  const params = new URLSearchParams();
  if (filters.kinds && filters.kinds.length < 3) params.set('kind', filters.kinds.join(','));
  if (filters.status) params.set('status', filters.status);
  if (filters.category) params.set('category', filters.category);
  if (filters.agent) params.set('agent', filters.agent);
  const query = params.toString();
  return `${location.origin}/tiles/{z}/{x}/{y}.mvt${query ? `?${query}` : ''}`;
}

export const KINDS = {
  entity: { table: 'entities', typename: 'Entity', label: 'entity' },
  listing: { table: 'listings', typename: 'Listing', label: 'listing' },
  request: { table: 'requests', typename: 'CanonicalRequest', label: 'request' },
};

export function kindOfTypename(typename) {
  return Object.keys(KINDS).find((k) => KINDS[k].typename === typename) || 'entity';
}

export function kindOfTable(table) {
  const name = String(table || '').replace('canonical.', '');
  return Object.keys(KINDS).find((k) => KINDS[k].table === name) || 'entity';
}

export function labelOf(record) {
  if (!record) return '(not visible)';
  return record.displayName || record.title || record.id;
}
