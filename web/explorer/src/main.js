// The provenance explorer served at GET /explore: a map of the canonical records (vector tiles),
// search, a record panel with each field's sources and history, the provenance graph, an agent
// view and the review queue. Everything it loads comes from this server.
import 'maplibre-gl/dist/maplibre-gl.css';
import './style.css';
import { documents, graphql, search, setOperatorKey, KINDS } from './api.js';
import { h, message, replace } from './dom.js';
import { createMap } from './map.js';
import { createRecordPanel } from './record.js';
import { createGraph } from './graph.js';
import { createAgentView } from './agent.js';
import { createReview } from './review.js';

const $ = (id) => document.getElementById(id);

const tabs = [...document.querySelectorAll('[role=tab]')];
function showTab(name) {
  for (const tab of tabs) {
    const selected = tab.dataset.tab === name;
    tab.setAttribute('aria-selected', String(selected));
    $(`tab-${tab.dataset.tab}`).hidden = !selected;
  }
  if (name === 'graph') graph.resize();
  if (name === 'review') review.load();
}
for (const tab of tabs) tab.addEventListener('click', () => showTab(tab.dataset.tab));

const mapError = $('map-error');
const map = createMap($('map'), {
  onRecord: (hit) => openRecord(hit),
  onError: (error) => {
    mapError.hidden = false;
    replace(mapError, `Map: ${message(error)}`);
  },
});

const actions = {
  openRecord: (target) => openRecord(target),
  openAgent: (id) => openAgent(id),
  showGraph: (record) => {
    showTab('graph');
    graph.start(record);
  },
  graphAgent: async (id) => {
    showTab('graph');
    await graph.expandAgent(id);
  },
  flyTo: (lngLat) => map.flyTo(lngLat),
  showAgentOnMap: (agent, places, { total }) => {
    map.setFilter('agent', agent.id);
    map.fit(places);
    const banner = $('agent-filter');
    banner.hidden = false;
    replace(banner, `Only the ${total} records `, h('strong', {}, agent.displayName), ' contributed to ',
      h('button', { type: 'button', onclick: () => {
        map.setFilter('agent', '');
        banner.hidden = true;
      } }, 'Show all'));
  },
  operate: async (document, variables, what) => {
    if (!window.confirm(`As operator: ${what}?`)) return;
    try {
      await graphql(document, variables, { operator: true });
      await review.load();
      if (recordPanel.current()) await openRecord({ id: recordPanel.current(), kind: lastKind });
    } catch (error) {
      window.alert(`Not done: ${message(error)}`);
    }
  },
};

const recordPanel = createRecordPanel($('tab-record'), actions);
const graph = createGraph($('graph'), {
  summary: $('graph-summary'),
  selection: $('graph-selection'),
  resetButton: $('graph-reset'),
  actions,
});
const agentView = createAgentView($('tab-agent'), actions);
const review = createReview({
  form: $('operator'),
  keyInput: $('operator-key'),
  status: $('operator-status'),
  list: $('review-list'),
  actions,
});

let lastKind = 'entity';
async function openRecord({ id, kind }) {
  lastKind = kind || 'entity';
  showTab('record');
  const record = await recordPanel.open({ id, kind: lastKind });
  if (record) {
    map.select([record.locationLng, record.locationLat]);
    history.replaceState(null, '', `#${lastKind}/${record.id}`);
    graph.start(record);
  }
  return record;
}

async function openAgent(id) {
  showTab('agent');
  await agentView.open(id);
}

// Search: the REST search API, results under the box.
const results = $('search-results');
$('search').addEventListener('submit', async (event) => {
  event.preventDefault();
  const text = $('search-input').value.trim();
  if (!text) return;
  results.hidden = false;
  replace(results, h('li', { class: 'muted' }, 'Searching…'));
  try {
    const hits = await search(text);
    if (!hits.length) {
      replace(results, h('li', { class: 'muted' }, 'No record matches.'));
      return;
    }
    replace(results, hits.map((hit) => h('li', {},
      h('button', {
        type: 'button',
        class: `hit kind-${hit.canonical_type}`,
        onclick: async () => {
          results.hidden = true;
          map.flyTo([hit.record.location_lng, hit.record.location_lat]);
          await openRecord({ id: hit.id, kind: hit.canonical_type });
        },
      }, h('span', { class: `dot kind-${hit.canonical_type}` }), hit.label,
      h('span', { class: 'small muted' }, ` ${hit.canonical_type}${hit.record.city ? ` · ${hit.record.city}` : ''}`)))));
  } catch (error) {
    replace(results, h('li', { class: 'error' }, message(error)));
  }
});
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') results.hidden = true;
});

// Map filters.
for (const box of document.querySelectorAll('#filters input[type=checkbox]')) {
  box.addEventListener('change', () => {
    const kinds = [...document.querySelectorAll('#filters input[type=checkbox]:checked')].map((b) => b.value);
    map.setFilter('kinds', kinds.length ? kinds : Object.keys(KINDS));
  });
}
$('filter-status').addEventListener('change', (event) => map.setFilter('status', event.target.value));
let categoryTimer;
$('filter-category').addEventListener('input', (event) => {
  clearTimeout(categoryTimer);
  categoryTimer = setTimeout(() => map.setFilter('category', event.target.value.trim()), 400);
});

// A record named in the address (#entity/<id>) opens at once.
const linked = /^#(entity|listing|request)\/([0-9a-f-]{36})$/.exec(location.hash);
if (linked) {
  openRecord({ kind: linked[1], id: linked[2] }).then((record) => {
    if (record) map.flyTo([record.locationLng, record.locationLat]);
  });
}

// The operator key never outlives the page.
window.addEventListener('pagehide', () => setOperatorKey(null));

// For the browser test and for curious analysts in the console (the map once it is created).
window.explorer = {
  get map() {
    return map.map;
  },
  graph: graph.cy,
  documents,
};
