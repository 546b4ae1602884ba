// The agent view: who the agent is, its influence by link type, its newest entries and the
// records they went to, and its records: listed (up to 1,000, with how many it has in all) and
// alone on the map (the tiles' `agent` filter, which draws every one of them).
import { documents, graphql, kindOfTypename, labelOf } from './api.js';
import { h, message, replace, score, when } from './dom.js';

const number = (n) => Number(n).toLocaleString('en-GB');

/** Records listed and framed at most; the map itself draws them all (tiles). */
const MAX_RECORDS = 1000;
/** Pages of 500 entries read at most to find them (the newest 2,000 entries). */
const MAX_PAGES = 4;

/** The agent's records with their places, from its newest entries: each record once. */
async function agentRecords(id) {
  const records = new Map();
  let after = null;
  let entries = 0;
  let totalEntries = null;
  for (let page = 0; page < MAX_PAGES && records.size < MAX_RECORDS; page++) {
    const { agent } = await graphql(documents.AGENT_RECORDS, { id, after });
    if (!agent) break;
    totalEntries = agent.entries.totalCount;
    for (const { node } of agent.entries.edges) {
      entries += 1;
      const r = node.canonical;
      if (r && !records.has(r.id) && records.size < MAX_RECORDS) records.set(r.id, r);
    }
    if (!agent.entries.pageInfo.hasNextPage) break;
    after = agent.entries.pageInfo.endCursor;
  }
  return { records: [...records.values()], entries, totalEntries };
}

const LINK_TYPES = [
  ['created', 'created'],
  ['updated', 'updated'],
  ['matched', 'matched'],
  ['merged', 'merged'],
  ['supportingEvidence', 'supporting evidence'],
  ['duplicateOf', 'duplicate of'],
];

export function createAgentView(element, actions) {
  /**
   * Lists its records (up to MAX_RECORDS) with how many it has in all, frames the map on them and
   * filters the map's tiles to the records it contributed to (all of them).
   */
  async function showRecords(agent) {
    const section = element.querySelector('#agent-records');
    replace(section, h('p', { class: 'muted' }, 'Finding its records…'));
    let found;
    try {
      found = await agentRecords(agent.id);
    } catch (error) {
      replace(section, h('p', { class: 'error' }, `Could not list its records: ${message(error)}`));
      return;
    }
    const { records, entries, totalEntries } = found;
    const all = agent.influence.records;
    const total = `${agent.influence.complete ? '' : 'at least '}${number(all)}`;
    const read = totalEntries !== null && entries < totalEntries
      ? ` (those of its newest ${number(entries)} of ${number(totalEntries)} entries)`
      : '';
    replace(section,
      h('h3', { id: 'agent-records-count', dataset: { shown: String(records.length), total: String(all) } },
        `Its records: showing ${number(records.length)} of ${total}${read}`),
      h('p', { class: 'small muted' }, 'The map draws all of them; it is framed on those listed.'),
      h('ol', { class: 'records-list' }, records.map((r) => {
        const kind = kindOfTypename(r.__typename);
        return h('li', {}, h('button', { type: 'button', class: `link kind-${kind}`, onclick: () => actions.openRecord({ id: r.id, kind }) },
          h('span', { class: `dot kind-${kind}` }), labelOf(r)));
      })));
    actions.showAgentOnMap(agent, records.map((r) => [r.locationLng, r.locationLat]), { shown: records.length, total });
  }

  async function open(id) {
    replace(element, h('p', { class: 'muted' }, 'Loading…'));
    let agent;
    try {
      ({ agent } = await graphql(documents.AGENT, { id, first: 25 }));
    } catch (error) {
      replace(element, h('p', { class: 'error' }, `Could not load the agent: ${message(error)}`));
      return;
    }
    if (!agent) {
      replace(element, h('p', { class: 'error' }, 'No such agent.'));
      return;
    }
    const influence = agent.influence;
    const most = Math.max(1, ...LINK_TYPES.map(([key]) => influence[key]));
    replace(element,
      h('article', { class: 'agent', dataset: { id: agent.id } },
        h('h2', { id: 'agent-title' }, agent.displayName),
        h('div', { class: 'meta' }, h('span', { class: 'badge' }, agent.agentType.toLowerCase().replace('_', ' ')), ' ', agent.agentHandle,
          ' · trust ', score(agent.scoreTrust), ' · reputation ', score(agent.scoreReputation), ' · since ', when(agent.createdAtTstampUtc).slice(0, 10)),
        agent.description ? h('p', {}, agent.description) : null,
        h('div', { class: 'actions' },
          h('button', { type: 'button', id: 'agent-on-map', onclick: () => showRecords(agent) }, 'Its records on the map'),
          h('button', { type: 'button', onclick: () => actions.graphAgent(agent.id) }, 'Add to the graph')),
        h('div', { id: 'agent-records' }),
        h('h3', {}, `Influence: ${influence.records} record(s) touched`),
        influence.complete ? null : h('p', { class: 'small muted', id: 'influence-bound' }, 'Counted over its newest 10,000 entries; older ones are left out.'),
        h('table', { class: 'influence' }, h('tbody', {}, LINK_TYPES.map(([key, label]) => h('tr', {},
          h('th', { scope: 'row' }, label),
          h('td', { class: 'bar' }, h('span', { style: null, class: 'fill', dataset: { share: String(influence[key] / most) } })),
          h('td', { class: 'num' }, String(influence[key])))))),
        h('h3', {}, 'Newest entries'),
        agent.entries.edges.length
          ? h('ol', { class: 'timeline' }, agent.entries.edges.map(({ node }) => h('li', {},
            h('span', { class: 'badge' }, node.status.toLowerCase()), ' ', when(node.observedAtTstampUtc), ' · ', node.entryType.toLowerCase(),
            node.canonical
              ? [' → ', h('button', { type: 'button', class: `link kind-${kindOfTypename(node.canonical.__typename)}`, onclick: () => actions.openRecord({ id: node.canonical.id, kind: kindOfTypename(node.canonical.__typename) }) }, labelOf(node.canonical)),
                node.linkType ? h('span', { class: 'small muted' }, ` (${node.linkType.toLowerCase()})`) : null]
              : null)))
          : h('p', { class: 'muted' }, 'No entries.')));
    // Bar widths through the CSSOM: the page's content security policy allows no inline styles.
    for (const fill of element.querySelectorAll('.fill')) {
      fill.style.width = `${Math.round(Number(fill.dataset.share) * 100)}%`;
    }
  }
  return { open };
}
