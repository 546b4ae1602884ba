// The provenance graph: record ↔ entries ↔ agents ↔ the other records those agents touched,
// expanded node by node through GraphQL (each expansion one bounded query).
import cytoscape from 'cytoscape';
import { documents, graphql, kindOfTypename, labelOf } from './api.js';
import { h, message, replace, short, when } from './dom.js';
import { COLOURS } from './map.js';

/** The graph stops growing here: past it a layout is unreadable on a phone anyway. */
const MAX_NODES = 250;
/** Below this zoom labels are too small to read; "Reset" still fits the whole graph. */
const READABLE_ZOOM = 0.8;

export function createGraph(container, { summary, selection, resetButton, actions }) {
  const cy = cytoscape({
    container,
    minZoom: 0.2,
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

  /** Lays the graph out; when fitting all of it would make labels unreadable, centres on `focus`. */
  function relayout(focus) {
    cy.layout({ name: 'cose', animate: false, nodeRepulsion: () => 9000, idealEdgeLength: () => 60, padding: 20, randomize: false }).run();
    cy.fit(undefined, 24);
    if (cy.zoom() < READABLE_ZOOM && focus && focus.length) {
      cy.zoom(READABLE_ZOOM);
      cy.center(focus);
    }
    const counts = { record: 0, entry: 0, agent: 0 };
    cy.nodes().forEach((n) => { counts[n.data('type')] += 1; });
    replace(summary, `${counts.record} record(s) · ${counts.entry} entr${counts.entry === 1 ? 'y' : 'ies'} · ${counts.agent} agent(s)`,
      cy.nodes().length >= MAX_NODES ? ` · limit of ${MAX_NODES} nodes reached` : '');
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
    const { agent } = await graphql(documents.AGENT, { id, first: 25 });
    if (!agent) return;
    const agentId = agentNode(agent);
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
      relayout(node);
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
          relayout(cy.getElementById(`a:${id}`));
        } catch (error) {
          replace(selection, h('span', { class: 'error' }, message(error)));
        }
      }
    },
    /** Lays the graph out again once its tab is visible (a hidden container has no size). */
    resize() {
      cy.resize();
      if (cy.nodes().length) relayout(cy.$('node:selected'));
    },
  };
}
