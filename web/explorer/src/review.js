// The review tab: the queue (anyone may read it) and, with an operator key typed into the page,
// the review service's resolutions (resolveReview) and duplicate decisions.
import { documents, graphql, hasOperatorKey, kindOfTable, kindOfTypename, labelOf, setOperatorKey } from './api.js';
import { h, message, replace, score, short, when } from './dom.js';

export function createReview({ form, keyInput, status, list, actions }) {
  async function load() {
    replace(list, h('p', { class: 'muted' }, 'Loading the review queue…'));
    let data;
    try {
      data = await graphql(documents.REVIEW_QUEUE, { first: 25 });
    } catch (error) {
      replace(list, h('p', { class: 'error' }, `Could not load the queue: ${message(error)}`));
      return;
    }
    const operator = hasOperatorKey();
    const items = data.reviewQueue.edges;
    const pairs = data.duplicateCandidates.edges;
    replace(list,
      h('h3', {}, `Entries waiting for review (${items.length})`),
      items.length ? h('ul', { class: 'plain review' }, items.map(({ node }) => item(node, operator))) : h('p', { class: 'muted' }, 'Nothing waits for review.'),
      h('h3', {}, `Reported duplicate pairs (${pairs.length})`),
      pairs.length ? h('ul', { class: 'plain' }, pairs.map(({ node }) => pair(node, operator))) : h('p', { class: 'muted' }, 'No open pairs.'));
  }

  function item(node, operator) {
    const name = node.entry && node.entry.context ? (node.entry.context.display_name || node.entry.context.title) : null;
    const resolve = (input, what) => actions.operate(documents.RESOLVE_REVIEW, { entryId: node.spaceTimeEntryId, input }, what);
    return h('li', { dataset: { entry: node.spaceTimeEntryId } },
      h('div', {}, h('strong', {}, name || `${node.entryType.toLowerCase()} entry ${short(node.spaceTimeEntryId)}`),
        ' from ', node.agent ? h('button', { type: 'button', class: 'link', onclick: () => actions.openAgent(node.agent.id) }, node.agent.displayName) : 'an agent',
        h('span', { class: 'small muted' }, ` · ${when(node.createdAtTstampUtc)}`)),
      h('div', { class: 'small' }, node.why || node.reason || ''),
      node.fields.length ? h('div', { class: 'small muted' }, 'fields: ', node.fields.join(', ')) : null,
      h('ul', { class: 'plain candidates' }, node.candidates.map((c) => h('li', {},
        c.record
          ? h('button', { type: 'button', class: 'link', onclick: () => actions.openRecord({ id: c.canonicalId, kind: kindOfTypename(c.record.__typename) }) }, labelOf(c.record))
          : h('span', {}, `${kindOfTable(c.canonicalTable)} ${short(c.canonicalId)}`),
        ` score ${score(c.score)}`,
        c.reasons.length ? h('div', { class: 'small muted' }, c.reasons.join(' · ')) : null,
        operator ? h('button', { type: 'button', onclick: () => resolve({ resolution: 'IS_RECORD', canonicalId: c.canonicalId }, `apply the entry to ${labelOf(c.record)}`) }, 'Is this record') : null))),
      operator
        ? h('div', { class: 'actions' },
          h('button', { type: 'button', onclick: () => resolve({ resolution: 'IS_NEW' }, 'create a new record from the entry') }, 'Is new'),
          h('button', { type: 'button', onclick: () => resolve({ resolution: 'REJECT' }, 'reject the entry') }, 'Reject'))
        : null);
  }

  function pair(node, operator) {
    const entity = node.record && node.record.__typename === 'Entity';
    return h('li', {},
      node.record ? h('button', { type: 'button', class: 'link', onclick: () => actions.openRecord({ id: node.recordId, kind: kindOfTypename(node.record.__typename) }) }, labelOf(node.record)) : short(node.recordId),
      ' duplicates ',
      node.duplicateOf ? h('button', { type: 'button', class: 'link', onclick: () => actions.openRecord({ id: node.duplicateOfId, kind: kindOfTypename(node.duplicateOf.__typename) }) }, labelOf(node.duplicateOf)) : short(node.duplicateOfId),
      h('span', { class: 'small muted' }, ` · ${node.signalCount} signal(s)`),
      operator && entity
        ? h('span', { class: 'actions' },
          h('button', { type: 'button', onclick: () => actions.operate(documents.MERGE_ENTITIES, { survivorId: node.duplicateOfId, mergedId: node.recordId }, 'merge the pair') }, 'Merge'),
          h('button', { type: 'button', onclick: () => actions.operate(documents.DISMISS_DUPLICATE, { id: node.id }, 'dismiss the pair') }, 'Dismiss'))
        : null);
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const key = keyInput.value.trim();
    keyInput.value = '';
    setOperatorKey(key);
    if (!key) {
      replace(status, 'No operator key: the queue is read-only.');
      load();
      return;
    }
    try {
      const data = await graphql(documents.OPERATOR, {}, { operator: true });
      const admin = data.myApiKeys.some((k) => key.startsWith(k.keyPrefix) && k.status === 'ACTIVE' && k.scopes.includes('admin'));
      if (!admin) {
        setOperatorKey(null);
        replace(status, h('span', { class: 'error' }, `${data.me.displayName}'s key has no admin scope: it was not kept.`));
      } else {
        replace(status, `Operator: ${data.me.displayName}. Actions are enabled.`);
      }
    } catch (error) {
      setOperatorKey(null);
      replace(status, h('span', { class: 'error' }, `The key was refused: ${message(error)}`));
    }
    load();
  });

  return { load };
}
