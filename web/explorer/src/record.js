// The record panel: fields with their sources, the as-of slider, contributions in time order,
// notes, signals and reported duplicates, and the link to the same query in GraphiQL.
import { documents, graphql, graphiqlUrl, hasOperatorKey, KINDS, kindOfTypename, labelOf } from './api.js';
import { h, message, replace, score, short, show, when } from './dom.js';

/** snake_case field names of the transformer's evidence → the GraphQL record's keys. */
function camel(field) {
  return field.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
}

/** Fields whose value is a list merged as a union: each value has its own source. */
const LIST_FIELDS = ['categories', 'tags'];

/**
 * The transformer's evidence names the fields of listings and requests by their common offer
 * names; the GraphQL record names them by kind.
 */
const OFFER_FIELDS = {
  Listing: {
    offer_type: 'listingType', amount: 'priceAmount', parent_entity_id: (r) => r.provider && r.provider.displayName,
    valid_from: 'validFromTstampUtc', valid_to: 'validToTstampUtc', needed_from: 'validFromTstampUtc', needed_by: 'validToTstampUtc',
  },
  CanonicalRequest: {
    offer_type: 'requestType', amount: 'budgetAmount', parent_entity_id: (r) => r.requester && r.requester.displayName,
    needed_from: 'neededFromTstampUtc', needed_by: 'neededByTstampUtc',
  },
};

/** A field's value on the record, by the evidence's name of the field. */
function valueOf(record, typename, field) {
  const key = (OFFER_FIELDS[typename] || {})[field];
  if (typeof key === 'function') return key(record);
  return record[key || camel(field)];
}

/** A link only for web addresses: an entry's source_ref is whatever the agent sent. */
function sourceLink(ref) {
  if (!ref) return null;
  return /^https?:\/\//i.test(ref)
    ? h('a', { href: ref, target: '_blank', rel: 'noopener noreferrer nofollow' }, ref)
    : h('span', {}, ref);
}

function evidence(entry, confidence) {
  if (!entry) return null;
  return h('span', { class: 'evidence' },
    [entry.sourceType, entry.entryIntent && entry.entryIntent.toLowerCase().replace('_', ' ')].filter(Boolean).join(' · '),
    entry.sourceRef ? [' · ', sourceLink(entry.sourceRef)] : null,
    confidence !== undefined ? ` · confidence ${score(confidence)}` : null);
}

export function createRecordPanel(element, actions) {
  let current = null;

  function agentButton(agent) {
    if (!agent) return h('span', { class: 'muted' }, '(agent not visible)');
    return h('button', { type: 'button', class: 'link', title: 'Open the agent view', onclick: () => actions.openAgent(agent.id) },
      agent.displayName);
  }

  function recordButton(record) {
    if (!record) return h('span', { class: 'muted' }, '(not visible)');
    const kind = kindOfTypename(record.__typename);
    return h('button', { type: 'button', class: `link kind-${kind}`, onclick: () => actions.openRecord({ id: record.id, kind }) },
      labelOf(record), record.status && record.status !== 'active' ? ` (${record.status})` : null);
  }

  /** Who set a field, with the entry, its observed time and its evidence. */
  function sourceOf(agent, entry, observed, confidence) {
    return [
      agentButton(agent),
      h('div', { class: 'small' }, 'entry ', h('code', { title: entry ? entry.id : '' }, short(entry && entry.id)),
        ' · observed ', when(observed)),
      h('div', { class: 'small muted' }, evidence(entry, confidence)),
    ];
  }

  /** Where the record is: its coordinates and the address fields it has. */
  function place(record) {
    if (!record || typeof record.locationLat !== 'number') return '—';
    const address = [record.addressText, record.city, record.countryCode].filter(Boolean).join(' · ');
    return [
      h('span', { class: 'coordinates' }, `${record.locationLat.toFixed(5)}, ${record.locationLng.toFixed(5)}`),
      address ? h('div', { class: 'small' }, address) : null,
    ];
  }

  /**
   * Each value of a list field (categories, tags) with the entry that brought it: lists are
   * merged as a union (a value is kept once, ignoring case), so a value's source is the oldest
   * contribution whose entry's context carried it.
   */
  function valueSources(record, field, values) {
    const key = (v) => String(v).trim().toLowerCase();
    const merging = ['CREATED', 'UPDATED', 'MATCHED', 'MERGED'];
    return values.map((value) => {
      const from = record.provenance.contributions.find((c) => {
        if (!c.entry || !merging.includes(c.linkType) || !c.entry.context) return false;
        const carried = c.entry.context[field];
        const list = Array.isArray(carried) ? carried : carried ? [carried] : [];
        return list.some((v) => key(v) === key(value));
      });
      return h('li', { dataset: { value } },
        h('strong', {}, value), ' ',
        from
          ? h('span', { class: 'source' }, sourceOf(from.entry.agent, from.entry, from.entry.observedAtTstampUtc, from.scoreConfidence))
          : h('span', { class: 'small muted' }, `(no source among its oldest ${record.provenance.contributions.length} contributions)`));
    });
  }

  function fieldsTable(record, asOf) {
    const fields = [...record.provenance.fields];
    // List fields are merged as a union and have no single source: a row each, with every
    // value's own source.
    for (const list of LIST_FIELDS) {
      if (!fields.some((f) => f.field === list) && Array.isArray(record[camel(list)]) && record[camel(list)].length) {
        fields.push({ field: list, list: true });
      }
    }
    if (!fields.length) return h('p', { class: 'muted' }, 'No per-field evidence recorded for this record.');
    return h('table', { class: 'fields' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Field'), h('th', {}, asOf ? 'Value then' : 'Value'), h('th', {}, 'Set by'))),
      h('tbody', {}, fields.map((f) => {
        const row = (value, changed, now, source) => h('tr', { class: changed ? 'changed' : null, dataset: { field: f.field } },
          h('th', { scope: 'row' }, f.field.replace(/_/g, ' ')),
          h('td', {}, value, changed ? h('div', { class: 'small muted' }, 'now: ', now) : null),
          h('td', { class: 'source' }, source));
        if (f.field === 'location') {
          const then = asOf || record;
          const changed = asOf && (then.locationLat !== record.locationLat || then.locationLng !== record.locationLng);
          return row(place(then), changed, place(record), sourceOf(f.agent, f.entry, f.observedAtTstampUtc, f.scoreConfidence));
        }
        const now = valueOf(record, record.__typename, f.field);
        const then = asOf ? valueOf(asOf, record.__typename, f.field) : now;
        const changed = asOf && JSON.stringify(then) !== JSON.stringify(now);
        if (LIST_FIELDS.includes(f.field) && Array.isArray(then)) {
          return row(then.length ? h('ul', { class: 'values' }, valueSources(record, f.field, then)) : '—', changed, show(now),
            h('span', { class: 'small muted' }, 'each value: its own source'));
        }
        return row(show(then), changed, show(now), sourceOf(f.agent, f.entry, f.observedAtTstampUtc, f.scoreConfidence));
      })));
  }

  function contributionsList(contributions) {
    if (!contributions.length) return h('p', { class: 'muted' }, 'No contributions.');
    return h('ol', { class: 'timeline' }, contributions.map((c) =>
      h('li', {},
        h('span', { class: `badge link-${c.linkType}` }, c.linkType.toLowerCase().replace('_', ' ')),
        ' ', when(c.createdAtTstampUtc), ' · ',
        c.entry ? agentButton(c.entry.agent) : h('span', { class: 'muted' }, '(entry not visible)'),
        h('div', { class: 'small muted' },
          c.entry ? ['entry ', h('code', {}, short(c.entry.id)), ' observed ', when(c.entry.observedAtTstampUtc), ' · '] : null,
          evidence(c.entry, c.scoreConfidence)),
        c.reason ? h('div', { class: 'small' }, c.reason) : null)));
  }

  function notesList(notes) {
    if (!notes.length) return h('p', { class: 'muted' }, 'No notes.');
    return h('ul', { class: 'plain' }, notes.map(({ node }) => h('li', {},
      h('div', {}, node.body),
      h('div', { class: 'small muted' }, node.author ? node.author.displayName : 'anonymous', ' · ', when(node.createdAtTstampUtc), ' · ', node.visibility.toLowerCase()))));
  }

  function signalsList(signals) {
    if (!signals.length) return h('p', { class: 'muted' }, 'No signals.');
    return h('ul', { class: 'plain' }, signals.map(({ node }) => h('li', {},
      h('span', { class: 'badge' }, node.signalType.toLowerCase()), ' weight ', score(node.weight), ' · ', when(node.createdAtTstampUtc),
      node.reason ? h('div', { class: 'small' }, node.reason) : null)));
  }

  function duplicatesList(id, candidates) {
    if (!candidates.length) return h('p', { class: 'muted' }, 'No reported duplicates.');
    return h('ul', { class: 'plain' }, candidates.map(({ node }) => {
      const other = node.recordId === id ? node.duplicateOf : node.record;
      const status = h('span', { class: 'small muted' }, ` ${node.status} · ${node.signalCount} signal(s)`);
      const operate = node.status === 'open' && hasOperatorKey() && node.record && node.record.__typename === 'Entity'
        ? h('span', { class: 'actions' },
          h('button', { type: 'button', onclick: () => actions.operate(documents.MERGE_ENTITIES, { survivorId: node.duplicateOfId, mergedId: node.recordId }, `merge ${short(node.recordId)} into ${short(node.duplicateOfId)}`) }, 'Merge'),
          h('button', { type: 'button', onclick: () => actions.operate(documents.DISMISS_DUPLICATE, { id: node.id }, 'dismiss the pair') }, 'Dismiss'))
        : null;
      return h('li', {}, node.recordId === id ? 'duplicate of ' : 'reported as its duplicate: ', recordButton(other), status, operate);
    }));
  }

  function historySlider(record, fieldsSection) {
    const steps = record.provenance.contributions.filter((c) => ['CREATED', 'UPDATED', 'MERGED'].includes(c.linkType));
    if (record.__typename !== 'Entity') {
      return h('p', { class: 'muted small' }, 'History replay is available for entities.');
    }
    if (steps.length < 1) return h('p', { class: 'muted small' }, 'No changes to replay.');
    const label = h('div', { class: 'small', id: 'asof-label', role: 'status' });
    const slider = h('input', { type: 'range', min: 0, max: steps.length - 1, step: 1, value: steps.length - 1, id: 'asof', 'aria-label': 'Replay the record as of a change' });
    let request = 0;
    async function replay() {
      const index = Number(slider.value);
      const step = steps[index];
      const who = step.entry && step.entry.agent ? step.entry.agent.displayName : 'an agent';
      replace(label, `As of ${when(step.createdAtTstampUtc)}: change ${index + 1} of ${steps.length} (${step.linkType.toLowerCase()} by ${who})`);
      const mine = ++request;
      try {
        const data = await graphql(documents.RECORD_AS_OF, { id: record.id, asOf: step.createdAtTstampUtc });
        if (mine !== request) return;
        const latest = index === steps.length - 1;
        replace(fieldsSection, fieldsTable(record, latest ? null : data.entity || {}));
      } catch (error) {
        replace(label, `Replay failed: ${message(error)}`);
      }
    }
    slider.addEventListener('input', replay);
    replace(label, `As of now: ${steps.length} change(s) to replay; drag to go back in time.`);
    return h('div', { class: 'history' }, slider, label);
  }

  async function open({ id, kind }) {
    const table = KINDS[kind] ? KINDS[kind].table : 'entities';
    current = id;
    replace(element, h('p', { class: 'muted' }, 'Loading…'));
    let data;
    try {
      data = await graphql(documents.RECORD, { id, table });
    } catch (error) {
      replace(element, h('p', { class: 'error' }, `Could not load the record: ${message(error)}`));
      return null;
    }
    if (current !== id) return null;
    const record = data.canonicalRecord;
    if (!record) {
      replace(element, h('p', { class: 'error' }, 'No such record.'));
      return null;
    }
    const realKind = kindOfTypename(record.__typename);
    const fieldsSection = h('div', { id: 'record-fields' }, fieldsTable(record, null));
    const link = graphiqlUrl(documents.RECORD, { id: record.id, table: KINDS[realKind].table });
    const merged = record.mergedIntoId
      ? h('p', { class: 'notice' }, 'This record was merged: ', h('button', { type: 'button', class: 'link', onclick: () => actions.openRecord({ id: record.mergedIntoId, kind: 'entity' }) }, 'open the survivor'))
      : null;
    replace(element,
      h('article', { class: 'record', dataset: { id: record.id, kind: realKind } },
        h('header', {},
          h('h2', { id: 'record-title' }, labelOf(record)),
          h('div', { class: 'meta' },
            h('span', { class: `badge kind-${realKind}` }, realKind), ' ',
            h('span', { class: 'badge' }, record.status), ' confidence ', h('strong', {}, score(record.scoreConfidence)),
            ' · ', [record.city, record.countryCode].filter(Boolean).join(', ') || `${record.locationLat.toFixed(4)}, ${record.locationLng.toFixed(4)}`),
          h('div', { class: 'small muted' }, 'id ', h('code', {}, record.id), ' · updated ', when(record.updatedAtTstampUtc)),
          h('div', { class: 'actions' },
            h('a', { href: link, target: '_blank', rel: 'noopener', id: 'graphiql-link' }, 'Open this query in GraphiQL'),
            h('button', { type: 'button', onclick: () => actions.showGraph(record) }, 'Provenance graph'),
            h('button', { type: 'button', onclick: () => actions.flyTo([record.locationLng, record.locationLat]) }, 'Show on map'))),
        merged,
        h('section', {}, h('h3', {}, 'Fields and where they came from'), fieldsSection),
        h('section', {}, h('h3', {}, 'History'), historySlider(record, fieldsSection)),
        h('section', {}, h('h3', {}, `Contributions (${record.provenance.contributions.length}, oldest first)`), contributionsList(record.provenance.contributions)),
        h('section', {}, h('h3', {}, 'Notes'), notesList(data.notes.edges)),
        h('section', {}, h('h3', {}, 'Signals'), signalsList(data.signals.edges)),
        h('section', {}, h('h3', {}, 'Reported duplicates'), duplicatesList(record.id, data.duplicateCandidates.edges))));
    return record;
  }

  return { open, current: () => current };
}
