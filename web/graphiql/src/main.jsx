// The GraphiQL IDE served at GET /graphql: everything it loads comes from this server.
import { GraphiQL } from 'graphiql';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { createRoot } from 'react-dom/client';
import 'graphiql/style.css';

// Monaco runs its language services in web workers, bundled beside this file.
globalThis.MonacoEnvironment = {
  getWorker(_workerId, label) {
    const name = label === 'json' || label === 'graphql' ? label : 'editor';
    return new Worker(`/graphiql/${name}.worker.js`);
  },
};

// Subscriptions go over a WebSocket to the same path; the Headers tab's values (the bearer) are
// sent as the connection_init payload.
const subscriptionUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
const fetcher = createGraphiQLFetcher({ url: '/graphql', subscriptionUrl });

const defaultQuery = `# The Space-Time Records Service graph. Press the run button (or Ctrl-Enter).
# Send your key as a header: {"Authorization": "Bearer str_..."} in the Headers tab.
{
  search(query: "plumber", maxResults: 5) {
    results {
      label
      score
      record {
        ... on Entity { displayName city contributions(first: 3) { linkType entry { observedAtTstampUtc agent { displayName } } } }
      }
    }
  }
}
`;

// A link may carry the document to open (`/graphql?query=...&variables=...`, as the explorer's
// "open in GraphiQL" does): it opens in a tab of its own beside the saved ones.
const params = new URLSearchParams(location.search);
const initial = {};
if (params.get('query')) initial.initialQuery = params.get('query');
if (params.get('variables')) initial.initialVariables = params.get('variables');

createRoot(document.getElementById('graphiql')).render(
  <GraphiQL fetcher={fetcher} defaultQuery={defaultQuery} {...initial} />,
);
