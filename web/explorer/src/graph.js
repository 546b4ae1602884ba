// The provenance graph: record ↔ entries ↔ agents ↔ the other records those agents touched,
// expanded node by node through GraphQL (each expansion one bounded query), every node kept in
// view, and the header truthful about what is shown of how much.
import cytoscape from 'cytoscape';
import { documents, graphql, kindOfTypename, labelOf } from './api.js';
import { h, message, replace, short, when } from './dom.js';
import { COLOURS } from './map.js';

/** The graph stops growing here: past it a layout is unreadable on a phone anyway. */
const MAX_NODES = 250;
/** Newest entries an agent's expansion adds (the header says how many it has in all). */
const AGENT_ENTRIES = 25;

export function createGraph(container, { summary, selection, resetButton, actions }) {
  const cy = cytoscape({
    container,
    minZoom: 0.05,
    maxZoom: 3,
    style: [
      { selector: 'node', style: { label: 'data(label)', 'font-size': 11, 'text-valign': 'bottom', 'text-margin-y': 3, 'text-wrap': 'ellipsis', 'text-max-width': 110, color: '#1f2937' } },
      { selector: 'node[type = "record"]', style: { shape: 'ellipse', width: 26, height: 26, 'background-color': 'data(colour)', 'border-width': 2, 'border-color': '#fff' } },
      { selector: 'node[type = "entry"]', style: { shape: 'round-rectangle', width: 12, height: 12, 'background-color': '#9ca3af', 'font-size': 8, color: '#6b7280' } },
      { selector: 'node[type = "agent"]', style: { shape: 'diamond', width: 24, height: 24, 'background-color': '#7c3aed' } },
      { selector: 'node[?expanded]', style: { 'border-width': 3, 'border-color': '#111827' } },
      { selector: 'node:selected', style: { 'overlay-color': '#f59e0b', 'overlay-opacity': 0.35, 'overlay-padding': 6 } },
      { selector: 'edge', style: { width: 1.2, 'line-color': '#cbd5e1', 'curve-style': 'bezier', 'target-arrow-shape': 'triangle', 'target-arrow-color': '#cbd5e1', 'arrow-scale': 0.7, label: 'data(label)', 'font-size': 7, color: '#64748b', 'text-rotation': 'autorotate' } },
    ],
    layout: { name: 'grid' },
  });

  function add(node) {
    if (cy.getElementById(node.id).length) return false;
    if (cy.nodes().length >= MAX_NODES) return false;
    cy.add({ group: 'nodes', data: node });
    return true;
  }

  function link(source, target, label) {
    const id = `${source}->${target}`;
    if (!cy.getElementById(source).length || !cy.getElementById(target).length || cy.getElementById(id).length) return;
    cy.add({ group: 'edges', data: { id, source, target, label } });
  }

  function recordNode(record) {
    const kind = kindOfTypename(record.__typename);
    add({ id: `r:${record.id}`, type: 'record', key: record.id, kind, label: labelOf(record), colour: COLOURS[kind] });
    return `r:${record.id}`;
  }

  function agentNode(agent) {
    add({ id: `a:${agent.id}`, type: 'agent', key: agent.id, label: agent.displayName });
    return `a:${agent.id}`;
  }

  function entryNode(entry) {
    add({ id: `e:${entry.id}`, type: 'entry', key: entry.id, label: when(entry.observedAtTstampUtc).slice(0, 10) });
    return `e:${entry.id}`;
  }

  /** What the API says an expanded agent has in all: entries (a connection's total) and records. */
  const totals = new Map();

  /**
   * Lays the graph out and fits every node in view (animated), whatever was expanded: the whole
   * graph stays visible. The header counts what is shown and, for each expanded agent, what it
   * has in all.
   */
  function relayout() {
    cy.layout({ name: 'cose', animate: false, nodeRepulsion: () => 9000, idealEdgeLength: () => 60, padding: 20, randomize: false }).run();
    cy.stop();
    cy.animate({ fit: { eles: cy.elements(), padding: 24 }, duration: 250 });
    const counts = { record: 0, entry: 0, agent: 0 };
    cy.nodes().forEach((n) => { counts[n.data('type')] += 1; });
    const agents = [...totals.entries()].filter(([id]) => cy.getElementById(`a:${id}`).length).map(([id, t]) => {
      const shown = cy.getElementById(`a:${id}`).outgoers('node[type = "entry"]').length;
      const total = t.entries === null ? 'more than 10,000' : t.entries.toLocaleString('en-GB');
      return h('div', { class: 'small muted', dataset: { agent: id, records: String(t.records) } },
        `${t.name}: ${shown} of ${total} entries shown; ${t.complete ? '' : 'at least '}${t.records.toLocaleString('en-GB')} records in all`);
    });
    replace(summary, `Shown: ${counts.record} record(s) · ${counts.entry} entr${counts.entry === 1 ? 'y' : 'ies'} · ${counts.agent} agent(s)`,
      cy.nodes().length >= MAX_NODES ? ` · limit of ${MAX_NODES} nodes reached` : '', agents);
    summary.dataset.records = counts.record;
    summary.dataset.entries = counts.entry;
    summary.dataset.agents = counts.agent;
  }

  async function expandRecord(id) {
    const data = await graphql(documents.EXPAND_RECORD, { id });
    const record = data.canonicalRecord;
    if (!record) return;
    const recordId = recordNode(record);
    for (const c of (record.provenance && record.provenance.contributions) || []) {
      if (!c.entry) continue;
      const entryId = entryNode(c.entry);
      link(entryId, recordId, c.linkType.toLowerCase());
      if (c.entry.agent) link(agentNode(c.entry.agent), entryId, 'sent');
    }
  }

  async function expandEntry(id) {
    const { entry } = await graphql(documents.EXPAND_ENTRY, { id });
    if (!entry) return;
    const entryId = entryNode(entry);
    if (entry.agent) link(agentNode(entry.agent), entryId, 'sent');
    for (const c of entry.contributions) {
      if (c.target) link(entryId, recordNode(c.target), c.linkType.toLowerCase());
    }
  }

  async function expandAgent(id) {
    const { agent } = await graphql(documents.AGENT, { id, first: AGENT_ENTRIES });
    if (!agent) return;
    const agentId = agentNode(agent);
    totals.set(agent.id, {
      name: agent.displayName,
      entries: agent.entries.totalCount,
      records: agent.influence.records,
      complete: agent.influence.complete,
    });
    for (const { node } of agent.entries.edges) {
      if (!node.canonical) continue;
      const entryId = entryNode(node);
      link(agentId, entryId, 'sent');
      link(entryId, recordNode(node.canonical), (node.linkType || '').toLowerCase());
    }
  }

  async function expand(node) {
    const type = node.data('type');
    const key = node.data('key');
    replace(selection, 'Expanding…');
    try {
      if (type === 'record') await expandRecord(key);
      else if (type === 'entry') await expandEntry(key);
      else await expandAgent(key);
      node.data('expanded', true);
      relayout();
      describe(node);
    } catch (error) {
      replace(selection, h('span', { class: 'error' }, `Could not expand: ${message(error)}`));
    }
  }

  function describe(node) {
    const type = node.data('type');
    const open = type === 'record'
      ? h('button', { type: 'button', onclick: () => actions.openRecord({ id: node.data('key'), kind: node.data('kind') }) }, 'Open record')
      : type === 'agent'
        ? h('button', { type: 'button', onclick: () => actions.openAgent(node.data('key')) }, 'Agent view')
        : null;
    replace(selection,
      h('strong', {}, node.data('label')), ` (${type} ${short(node.data('key'))}) `,
      node.data('expanded') ? h('span', { class: 'muted' }, 'expanded ') : h('button', { type: 'button', onclick: () => expand(node) }, 'Expand'),
      ' ', open);
  }

  cy.on('tap', 'node', (event) => describe(event.target));
  cy.on('dbltap', 'node', (event) => expand(event.target));
  resetButton.addEventListener('click', () => cy.fit(undefined, 24));

  return {
    cy,
    /** Starts the graph at a record and expands it one step. */
    async start(record) {
      cy.elements().remove();
      totals.clear();
      recordNode(record);
      resetButton.hidden = false;
      const node = cy.getElementById(`r:${record.id}`);
      await expand(node);
      node.select();
    },
    async expandAgent(id) {
      if (!cy.getElementById(`a:${id}`).length) {
        try {
          await expandAgent(id);
          cy.getElementById(`a:${id}`).data('expanded', true);
          relayout();
        } catch (error) {
          replace(selection, h('span', { class: 'error' }, message(error)));
        }
      }
    },
    /** Lays the graph out again once its tab is visible (a hidden container has no size). */
    resize() {
      cy.resize();
      if (cy.nodes().length) relayout();
    },
  };
}
