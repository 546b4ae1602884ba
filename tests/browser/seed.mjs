// Seeds a running server with a small, realistic world for the browser test: three agents
// publishing about the same plumber (so its fields come from different entries and agents), other
// records in Manchester and elsewhere, two at one address, a listing and a request, a note,
// signals, a reported duplicate and an entry left for review. Everything goes through the public API; the admin key
// (for the review entry's processing) comes from `admin create-key`.
const base = process.env.STRS_BASE;

async function call(method, path, body, key) {
  const headers = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  const response = await fetch(`${base}${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function register(name, type) {
  const r = await call('POST', '/api/v1/agents/register', { agent_type: type, display_name: name });
  return { id: r.agent.id, key: r.api_key, name };
}

function entity(name, lat, lng, context = {}, observed = '2026-11-01T10:00:00Z') {
  return {
    entry_type: 'entity', latitude: lat, longitude: lng, observed_at_tstamp_utc: observed,
    source_type: 'web_page', source_ref: `https://directory.example/${name.toLowerCase().replace(/[^a-z]+/g, '-')}`,
    context: { display_name: name, country_code: 'GB', city: 'Manchester', ...context },
  };
}

async function waitProcessed(ids) {
  for (let attempt = 0; attempt < 150; attempt++) {
    const states = await Promise.all(ids.map((id) => call('GET', `/api/v1/space-time-entries/${id}`)));
    if (states.every((s) => s.status !== 'pending')) return states;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('entries stayed pending');
}

/** Publishes one entry and waits for the background transformer to decide it. */
async function publish(agent, body) {
  const created = await call('POST', '/api/v1/space-time-entries', body, agent.key);
  const [done] = await waitProcessed([created.id]);
  return done;
}

export async function seed() {
  const directory = await register('Northern Directory', 'scraper');
  const chamber = await register('Chamber of Trade', 'api_agent');
  const survey = await register('Street Survey', 'human');

  const plumbing = await publish(directory, entity('Northern Plumbing Ltd', 53.4808, -2.2426,
    { categories: ['plumber'], phone: '0161 496 0123', website_url: 'https://northern-plumbing.example' }, '2026-10-01T09:00:00Z'));
  await publish(chamber, entity('Northern Plumbing Ltd', 53.4808, -2.2426,
    { categories: ['plumber', 'heating engineer'], phone: '0161 496 0123', email: 'office@northern-plumbing.example', description: 'Boilers, leaks and bathrooms since 1998' },
    '2026-10-15T09:00:00Z'));
  await publish(survey, entity('Northern Plumbing Ltd', 53.4808, -2.2426,
    { categories: ['plumber'], phone: '0161 496 0123', address_text: '12 Oldham Street, Manchester M1 1JQ' }, '2026-11-02T16:30:00Z'));

  const others = [];
  const places = [
    ['Ancoats Sourdough', 'bakery'], ['Deansgate Electrics', 'electrician'], ['Salford Joinery', 'joiner'],
    ['Hulme Corner Cafe', 'cafe'], ['Piccadilly Locksmiths', 'locksmith'], ['Castlefield Bikes', 'bicycle_shop'],
    ['Chorlton Florist', 'florist'], ['Rusholme Tailors', 'tailor'], ['Levenshulme Glaziers', 'glazier'],
    ['Didsbury Dental Care', 'dentist'], ['Moss Side Motors', 'garage'], ['Ardwick Roofing', 'roofer'],
    ['Cheetham Hill Pharmacy', 'pharmacy'], ['Gorton Painters', 'painter'], ['Withington Books', 'bookshop'],
    ['Northern Quarter Records', 'record_shop'],
  ];
  const agents = [directory, chamber, survey];
  for (const [i, [name, category]] of places.entries()) {
    const body = entity(name, 53.455 + (i % 4) * 0.012, -2.275 + Math.floor(i / 4) * 0.015,
      { categories: [category], phone: `0161 496 0${String(200 + i).padStart(3, '0')}` });
    others.push((await call('POST', '/api/v1/space-time-entries', body, agents[i % 3].key)).id);
  }
  for (const [name, lat, lng, cc, city] of [['Thames Plumbing', 51.507, -0.1278, 'GB', 'London'], ['Liffey Bakery', 53.3498, -6.2603, 'IE', 'Dublin'], ['Spree Elektrik', 52.52, 13.405, 'DE', 'Berlin']]) {
    others.push((await call('POST', '/api/v1/space-time-entries', entity(name, lat, lng, { country_code: cc, city, categories: ['plumber'] }), directory.key)).id);
  }
  await waitProcessed(others);

  await publish(chamber, { entry_type: 'listing', latitude: 53.4812, longitude: -2.2420, observed_at_tstamp_utc: '2026-11-03T10:00:00Z',
    context: { title: 'Annual boiler service', price_amount: 90, currency_code: 'GBP', categories: ['plumber'], provider_entity_id: plumbing.canonical_id } });
  await publish(survey, { entry_type: 'request', latitude: 53.4790, longitude: -2.2450, observed_at_tstamp_utc: '2026-11-04T10:00:00Z',
    context: { title: 'Need a plumber for a leaking pipe', budget_amount: 150, currency_code: 'GBP', categories: ['plumber'] } });
  // Another record at the same door, which an agent reports as the plumber's duplicate.
  const twin = await publish(survey, entity('Oldham Street Plumbers', 53.4811, -2.2429,
    { categories: ['plumber', 'heating'], phone: '0161 496 0999' }));

  await call('POST', '/api/v1/notes', { target_schema: 'canonical', target_table: 'entities', target_id: plumbing.canonical_id,
    body: 'Van seen outside on Sunday morning', visibility: 'public' }, survey.key);
  await call('POST', '/api/v1/signals', { signal_type: 'confirm', target_schema: 'canonical', target_table: 'entities',
    target_id: plumbing.canonical_id, reason: 'Phone answered' }, chamber.key);
  if (twin.canonical_id && twin.canonical_id !== plumbing.canonical_id) {
    await call('POST', '/api/v1/signals', { signal_type: 'duplicate', target_schema: 'canonical', target_table: 'entities',
      target_id: twin.canonical_id, duplicate_of_id: plumbing.canonical_id }, chamber.key);
  }
  // Two businesses at one address (a barber and, upstairs, a nail studio): one spot on the map.
  const upstairs = [];
  for (const [name, category, phone] of [['Piccadilly Barbers', 'barber', '0161 496 0555'], ['Rosa Nail Studio', 'nail_salon', '0161 496 0556']]) {
    upstairs.push((await publish(survey, entity(name, 53.4790, -2.2300, { categories: [category], phone }))).canonical_id);
  }
  // Acme's name with Bolt's phone, between the two: the transformer leaves it for an operator.
  const acme = await publish(directory, entity('Acme Heating', 53.4700, -2.2300, { website_url: 'https://acme-heating.example' }));
  const bolt = await publish(directory, entity('Bolt Gas Services', 53.47036, -2.2300, { phone: '0161 496 0777' }));
  const split = await publish(chamber, entity('Acme Heating', 53.47018, -2.2300, { phone: '0161 496 0777' }));
  return {
    plumbingId: plumbing.canonical_id,
    agents: { directory, chamber, survey },
    review: split.status === 'review_required' ? split.id : null,
    acmeId: acme.canonical_id,
    sameSpot: { lngLat: [-2.2300, 53.4790], ids: upstairs, names: ['Piccadilly Barbers', 'Rosa Nail Studio'] },
    boltId: bolt.canonical_id,
  };
}
