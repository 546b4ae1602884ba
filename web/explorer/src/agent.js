// The agent view: who the agent is, its influence by link type, its newest entries and the
// records they went to, and its records alone on the map (the tiles' `agent` filter).
import { documents, graphql, kindOfTypename, labelOf } from './api.js';
import { h, message, replace, score, when } from './dom.js';

const LINK_TYPES = [
  ['created', 'created'],
  ['updated', 'updated'],
  ['matched', 'matched'],
  ['merged', 'merged'],
  ['supportingEvidence', 'supporting evidence'],
  ['duplicateOf', 'duplicate of'],
];

export function createAgentView(element, actions) {
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
          h('button', { type: 'button', id: 'agent-on-map', onclick: () => actions.showAgentOnMap(agent, agent.entries.edges.map(({ node }) => [node.longitude, node.latitude])) }, 'Its records on the map'),
          h('button', { type: 'button', onclick: () => actions.graphAgent(agent.id) }, 'Add to the graph')),
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
