//! A deterministic, seeded generator of realistic canonical entities (businesses) and of the
//! space-time entry bodies agents would publish about them.
//!
//! Entity `i` of seed `s` is always the same business, whatever `count` is asked for: every entity
//! draws from its own RNG (`StdRng` seeded from `s` and `i`), so `entities(s, 100)` is a prefix of
//! `entities(s, 100_000)` and a benchmark can re-observe entity `i` without keeping the base around.
//!
//! What it looks like:
//! - 36 city clusters in GB, IE, DE, FR, ES, IT, NL, US, CA and AU (real city-centre coordinates,
//!   weighted roughly by size); 80% of points within 10 km of the centre (denser towards it), 15%
//!   between 10 and 40 km, 5% rural (45 to 120 km out, no city).
//! - Names from per-language first-name and surname lists, 40 trades named in the local language
//!   (categories stay English keys such as `plumber`) and the country's legal forms ("Smith
//!   Plumbing", "Premier Joinery Ltd", "Bäckerei Müller", "Fontanería García S.L."), so identity
//!   keys see accents, "&", apostrophes and legal suffixes. Of 100k businesses about half have a
//!   name key of their own; the rest share one across cities, as chains and namesakes do.
//! - Websites only under the reserved `.example` TLD; phone numbers in the national style, from the
//!   ranges regulators reserve for fiction where there is one (GB, DE, FR, US/CA 555-01xx, AU).
//!   IE, ES, IT and NL have no such range: their numbers are made up in the national format.
//!   Reserved ranges are small (1,000 numbers per GB/DE city, 100 per US area code), so phone
//!   keys repeat more often than in real data. Landlines only: libphonenumber's metadata (and so
//!   `phone_key`) rejects the reserved mobile ranges (GB 07700 900xxx, FR 06 39 98 xx xx), which
//!   would leave those businesses without a phone key.

use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use serde_json::{Map, Value, json};
use spacetime_records::transform::normalize::{name_key, phone_key, website_key};
use std::f64::consts::TAU;

/// Indexes of the businesses that [`entry_plan`] invents: far above any base a benchmark loads, so
/// a "new" business is never one of the loaded entities.
pub const NEW_BUSINESS_INDEX_BASE: u64 = 1 << 40;

/// Share of the entries in [`entry_plan`] that re-observe an existing business.
pub const REOBSERVATION_SHARE: f64 = 0.30;

/// Share of the re-observations that are of a business first seen earlier in the same stream
/// (the rest re-observe the loaded base).
pub const STREAM_REPEAT_SHARE: f64 = 0.10;

const STREAM_ENTITIES: u64 = 0x454e_5449_5459; // "ENTITY"
const STREAM_ENTRIES: u64 = 0x454e_5452_5900; // "ENTRY"

/// One generated business, as the canonical table would hold it after a clean import.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedEntity {
    /// Position in the seed's sequence; [`entity`] with the same seed and index rebuilds it.
    pub index: u64,
    pub display_name: String,
    /// The legal form at the end of `display_name` ("Ltd", "GmbH", "S.L."), when there is one.
    pub legal_form: Option<String>,
    pub description: String,
    /// The trade first, sometimes a related second one.
    pub categories: Vec<String>,
    /// Always `https://<slug>.example`.
    pub website_url: Option<String>,
    /// National format, e.g. `0161 496 0123`.
    pub phone: Option<String>,
    /// The same number in international format, e.g. `+44 161 496 0123`.
    pub phone_international: Option<String>,
    /// None for rural businesses.
    pub city: Option<String>,
    /// The cluster the point belongs to (also for rural businesses).
    pub cluster_city: String,
    pub country_code: String,
    pub latitude: f64,
    pub longitude: f64,
    pub rural: bool,
}

impl GeneratedEntity {
    pub fn name_key(&self) -> String {
        name_key(&self.display_name)
    }

    pub fn website_key(&self) -> Option<String> {
        self.website_url.as_deref().and_then(website_key)
    }

    pub fn phone_key(&self) -> Option<String> {
        self.phone
            .as_deref()
            .and_then(|p| phone_key(p, Some(&self.country_code)))
    }

    /// The entity-entry context an agent would publish about this business, unvaried.
    pub fn context(&self) -> Map<String, Value> {
        let mut c = Map::new();
        c.insert("display_name".into(), json!(self.display_name));
        if let Some(url) = &self.website_url {
            c.insert("website_url".into(), json!(url));
        }
        if let Some(phone) = &self.phone {
            c.insert("phone".into(), json!(phone));
        }
        if let Some(city) = &self.city {
            c.insert("city".into(), json!(city));
        }
        c.insert("country_code".into(), json!(self.country_code));
        c.insert("categories".into(), json!(self.categories));
        c.insert("description".into(), json!(self.description));
        c
    }
}

/// The first `count` entities of `seed`.
pub fn entities(seed: u64, count: usize) -> impl Iterator<Item = GeneratedEntity> {
    (0..count as u64).map(move |index| entity(seed, index))
}

/// Entity `index` of `seed`.
pub fn entity(seed: u64, index: u64) -> GeneratedEntity {
    let mut rng = StdRng::seed_from_u64(mix(mix(seed, STREAM_ENTITIES), index));
    let city = pick_city(&mut rng);
    let country = country(city.country);
    let (latitude, longitude, rural) = place(&mut rng, city);
    let trade = TRADES.choose(&mut rng).expect("trades");
    let (display_name, legal_form) = business_name(&mut rng, city, country, trade);
    let mut categories = vec![trade.category.to_string()];
    if rng.random_bool(0.2) {
        let other = TRADES.choose(&mut rng).expect("trades");
        if other.category != trade.category {
            categories.push(other.category.to_string());
        }
    }
    let website_url = rng
        .random_bool(0.75)
        .then(|| format!("https://{}-{}.example", slug(&display_name), base36(index)));
    let phone = rng.random_bool(0.85).then(|| {
        let template = city.phones.choose(&mut rng).expect("phone templates");
        fill_digits(&mut rng, template)
    });
    let phone_international = phone.as_deref().map(|p| international(country, p));
    let place_text = if rural {
        format!("the countryside around {}", city.name)
    } else {
        city.name.to_string()
    };
    GeneratedEntity {
        index,
        description: describe(&mut rng, trade, &place_text),
        display_name,
        legal_form,
        categories,
        website_url,
        phone,
        phone_international,
        city: (!rural).then(|| city.name.to_string()),
        cluster_city: city.name.to_string(),
        country_code: city.country.to_string(),
        latitude,
        longitude,
        rural,
    }
}

/// What an entry of [`entry_plan`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A business not in the base and not seen before in the stream: should be created.
    NewBusiness,
    /// A business of the loaded base (index below `base_entities`): should match it.
    BaseReobservation,
    /// A business first published earlier in the same stream: should match what that created.
    StreamRepeat,
}

/// One entry body with what the generator knows about it, to check the transformer's outcome.
#[derive(Debug, Clone)]
pub struct PlannedEntry {
    pub idempotency_key: String,
    pub kind: EntryKind,
    /// The business observed: `entity(seed, entity_index)`.
    pub entity_index: u64,
    /// Body of POST /api/v1/space-time-entries.
    pub body: Value,
}

/// `count` create bodies for POST /api/v1/space-time-entries: entity entries with distinct
/// idempotency keys, ~70% brand-new businesses and ~30% re-observations. The re-observed
/// businesses are among the first `count` entities of `seed`, so load at least that many with the
/// same seed (see [`entry_plan`] to spread them over a larger base).
pub fn entry_bodies(seed: u64, count: usize) -> Vec<Value> {
    entry_plan(seed, count, count)
        .into_iter()
        .map(|p| p.body)
        .collect()
}

/// Like [`entry_bodies`], re-observing entities spread over the first `base_entities` of `seed`,
/// with each entry's kind. Entry `j` depends only on `seed`, `j` and `base_entities` (a longer plan
/// extends a shorter one).
///
/// Re-observations vary the way agents do: the point jittered by up to 40 m (half of them), the
/// legal form dropped or the name upper-cased, `www.`/`http://`/trailing slash on the website,
/// the phone in international format, fields left out, a fresh description or an extra category.
/// Only dropping a legal form that `name_key` keeps (e.K., S.L.U., S.n.c., V.O.F., DAC) changes an
/// identity key (to a similar name), so each should match its business.
pub fn entry_plan(seed: u64, count: usize, base_entities: usize) -> Vec<PlannedEntry> {
    let mut plan = Vec::with_capacity(count);
    let mut new_so_far: Vec<u64> = Vec::new();
    for j in 0..count as u64 {
        let mut rng = StdRng::seed_from_u64(mix(mix(seed, STREAM_ENTRIES), j));
        let reobserve = base_entities > 0 && rng.random_bool(REOBSERVATION_SHARE);
        let (kind, index) = if !reobserve {
            (EntryKind::NewBusiness, NEW_BUSINESS_INDEX_BASE + j)
        } else if !new_so_far.is_empty() && rng.random_bool(STREAM_REPEAT_SHARE) {
            let earlier = *new_so_far.choose(&mut rng).expect("not empty");
            (EntryKind::StreamRepeat, earlier)
        } else {
            (
                EntryKind::BaseReobservation,
                rng.random_range(0..base_entities as u64),
            )
        };
        let business = entity(seed, index);
        let context = match kind {
            EntryKind::NewBusiness => {
                new_so_far.push(index);
                business.context()
            }
            EntryKind::BaseReobservation | EntryKind::StreamRepeat => {
                varied_context(&mut rng, &business)
            }
        };
        let (latitude, longitude) = if kind != EntryKind::NewBusiness && rng.random_bool(0.5) {
            let (lat, lng) = offset(
                business.latitude,
                business.longitude,
                rng.random_range(1.0..40.0),
                rng.random_range(0.0..TAU),
            );
            (round6(lat), round6(lng))
        } else {
            (business.latitude, business.longitude)
        };
        let idempotency_key = format!("bench-{seed}-{j}");
        let mut body = json!({
            "entry_type": "entity",
            "latitude": latitude,
            "longitude": longitude,
            "observed_at_tstamp_utc": observed_at(&mut rng),
            "source_type": if rng.random_bool(0.5) { "web_page" } else { "directory_listing" },
            "idempotency_key": idempotency_key,
            "context": Value::Object(context),
        });
        if rng.random_bool(0.5) {
            body["source_ref"] = json!(format!("https://directory.example/biz/{}", base36(index)));
        }
        plan.push(PlannedEntry {
            idempotency_key,
            kind,
            entity_index: index,
            body,
        });
    }
    plan
}

fn varied_context(rng: &mut StdRng, e: &GeneratedEntity) -> Map<String, Value> {
    let mut c = e.context();
    let name = match rng.random_range(0..10) {
        0..7 => e.display_name.clone(),
        7 | 8 => match &e.legal_form {
            Some(form) => e
                .display_name
                .strip_suffix(form.as_str())
                .map_or(e.display_name.clone(), |s| s.trim_end().to_string()),
            None => e.display_name.replace(" & ", " and "),
        },
        _ => e.display_name.to_uppercase(),
    };
    c.insert("display_name".into(), json!(name));
    if let Some(url) = &e.website_url {
        let host = url.trim_start_matches("https://");
        match rng.random_range(0..10) {
            0..6 => {}
            6 | 7 => {
                c.insert("website_url".into(), json!(format!("https://www.{host}/")));
            }
            8 => {
                c.insert("website_url".into(), json!(format!("http://{host}")));
            }
            _ => {
                c.remove("website_url");
            }
        }
    }
    if let Some(international) = &e.phone_international {
        match rng.random_range(0..10) {
            0..5 => {}
            5..8 => {
                c.insert("phone".into(), json!(international));
            }
            _ => {
                c.remove("phone");
            }
        }
    }
    if rng.random_bool(0.4) {
        let trade = TRADES
            .iter()
            .find(|t| t.category == e.categories[0])
            .unwrap_or(&TRADES[0]);
        let place = e.city.as_deref().unwrap_or(&e.cluster_city);
        c.insert("description".into(), json!(describe(rng, trade, place)));
    } else if rng.random_bool(0.5) {
        c.remove("description");
    }
    if rng.random_bool(0.2) {
        let extra = TRADES.choose(rng).expect("trades").category;
        let mut categories = e.categories.clone();
        if !categories.iter().any(|c| c == extra) {
            categories.push(extra.to_string());
        }
        c.insert("categories".into(), json!(categories));
    }
    c
}

fn observed_at(rng: &mut StdRng) -> String {
    format!(
        "2026-10-{:02}T{:02}:{:02}:{:02}Z",
        rng.random_range(1..=31),
        rng.random_range(0..24),
        rng.random_range(0..60),
        rng.random_range(0..60)
    )
}

/// splitmix64 of `a` and `b`: independent RNG streams from one seed.
fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b
        .wrapping_add(0x9E37_79B9_7F4A_7C15)
        .wrapping_mul(0xD6E8_FEB8_6659_FD93);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).expect("ascii")
}

fn slug(name: &str) -> String {
    let mut slug = String::new();
    for c in deunicode::deunicode(name).chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if c == '\'' {
            continue;
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let mut slug: String = slug.trim_end_matches('-').chars().take(40).collect();
    while slug.ends_with('-') {
        slug.pop();
    }
    slug
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// The point `distance_m` from (lat, lng) along `bearing` (radians from north); a flat-earth
/// approximation, good to well under 1% at these distances.
fn offset(lat: f64, lng: f64, distance_m: f64, bearing: f64) -> (f64, f64) {
    let dlat = distance_m * bearing.cos() / 111_320.0;
    let dlng = distance_m * bearing.sin() / (111_320.0 * lat.to_radians().cos());
    ((lat + dlat).clamp(-89.9, 89.9), wrap_lng(lng + dlng))
}

fn wrap_lng(lng: f64) -> f64 {
    if lng > 180.0 {
        lng - 360.0
    } else if lng < -180.0 {
        lng + 360.0
    } else {
        lng
    }
}

fn place(rng: &mut StdRng, city: &City) -> (f64, f64, bool) {
    let roll: f64 = rng.random();
    let (distance_m, rural) = if roll < 0.05 {
        (rng.random_range(45_000.0..120_000.0), true)
    } else if roll < 0.20 {
        (rng.random_range(10_000.0..40_000.0), false)
    } else {
        // u^0.75 instead of the uniform disc's u^0.5: denser towards the centre.
        (10_000.0 * rng.random::<f64>().powf(0.75), false)
    };
    let (lat, lng) = offset(city.lat, city.lng, distance_m, rng.random_range(0.0..TAU));
    (round6(lat), round6(lng), rural)
}

fn pick_city(rng: &mut StdRng) -> &'static City {
    let total: u32 = CITIES.iter().map(|c| c.weight).sum();
    let mut roll = rng.random_range(0..total);
    for city in CITIES {
        if roll < city.weight {
            return city;
        }
        roll -= city.weight;
    }
    &CITIES[0]
}

fn business_name(
    rng: &mut StdRng,
    city: &City,
    country: &Country,
    trade: &Trade,
) -> (String, Option<String>) {
    let surnames = surnames(city.lang);
    let surname = *surnames.choose(rng).expect("surnames");
    let other = *surnames.choose(rng).expect("surnames");
    let first = *first_names(city.lang).choose(rng).expect("first names");
    let word = trade.names[city.lang as usize];
    let form = *country.legal_forms.choose(rng).expect("legal forms");
    let roll = rng.random_range(0..100);
    let (name, legal_form) = if city.lang == Lang::En {
        let adjective = *ADJECTIVES.choose(rng).expect("adjectives");
        match roll {
            0..10 => (format!("{surname} {word}"), None),
            10..18 => (format!("{adjective} {word} {form}"), Some(form)),
            18..33 => (format!("{surname} & {other} {word}"), None),
            33..36 => (format!("{surname} & Sons {word}"), None),
            36..42 => (format!("The {adjective} {word}"), None),
            42..48 => (format!("{surname}'s {word}"), None),
            48..54 => (format!("{first}'s {word}"), None),
            54..90 => (format!("{first} {surname} {word}"), None),
            _ => (format!("{surname} {word} {form}"), Some(form)),
        }
    } else {
        match roll {
            0..12 => (format!("{word} {surname}"), None),
            12..27 => (format!("{surname} {word} {form}"), Some(form)),
            27..47 => (format!("{word} {surname} & {other}"), None),
            47..57 => (format!("{word} {surname} {form}"), Some(form)),
            57..92 => (format!("{word} {first} {surname}"), None),
            _ => (format!("{surname} {word}"), None),
        }
    };
    (name, legal_form.map(str::to_string))
}

fn describe(rng: &mut StdRng, trade: &Trade, place: &str) -> String {
    const OPENERS: &[&str] = &[
        "Family-run",
        "Independent",
        "Award-winning",
        "Long-established",
        "Friendly",
        "Local",
        "Trusted",
        "Modern",
    ];
    const CLOSERS: &[&str] = &[
        "Open Monday to Saturday.",
        "Open seven days a week.",
        "Free quotes on request.",
        "Friendly, qualified team.",
        "Book online or call us.",
        "Wheelchair accessible.",
        "Card and contactless payments accepted.",
    ];
    let opener = *OPENERS.choose(rng).expect("openers");
    let first = rng.random_range(0..trade.services.len());
    let second = (first + rng.random_range(1..trade.services.len())) % trade.services.len();
    let mut text = format!(
        "{opener} {} in {place} offering {} and {}.",
        trade.noun, trade.services[first], trade.services[second]
    );
    if rng.random_bool(0.5) {
        text.push_str(&format!(
            " Serving {place} since {}.",
            rng.random_range(1950..2025)
        ));
    }
    if rng.random_bool(0.6) {
        text.push(' ');
        text.push_str(CLOSERS.choose(rng).expect("closers"));
    }
    text
}

/// Replaces every `X` with a random digit.
fn fill_digits(rng: &mut StdRng, template: &str) -> String {
    template
        .chars()
        .map(|c| {
            if c == 'X' {
                char::from(b'0' + rng.random_range(0..10u8))
            } else {
                c
            }
        })
        .collect()
}

/// The national number in international format, as agents often write it.
fn international(country: &Country, national: &str) -> String {
    if country.calling_code == "1" {
        let digits: String = national.chars().filter(char::is_ascii_digit).collect();
        let (area, rest) = digits.split_at(3.min(digits.len()));
        let (exchange, line) = rest.split_at(3.min(rest.len()));
        format!("+1 {area} {exchange} {line}")
    } else if country.trunk_zero {
        format!(
            "+{} {}",
            country.calling_code,
            national.strip_prefix('0').unwrap_or(national)
        )
    } else {
        format!("+{} {national}", country.calling_code)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    En = 0,
    De = 1,
    Fr = 2,
    Es = 3,
    It = 4,
    Nl = 5,
}

struct City {
    name: &'static str,
    country: &'static str,
    lat: f64,
    lng: f64,
    /// Relative share of the entities.
    weight: u32,
    lang: Lang,
    /// Landline templates (`X` = random digit).
    phones: &'static [&'static str],
}

struct Country {
    code: &'static str,
    calling_code: &'static str,
    /// Whether the national format's leading 0 is dropped in international format.
    trunk_zero: bool,
    legal_forms: &'static [&'static str],
}

fn country(code: &str) -> &'static Country {
    COUNTRIES
        .iter()
        .find(|c| c.code == code)
        .expect("every city's country is listed")
}

const COUNTRIES: &[Country] = &[
    Country {
        code: "GB",
        calling_code: "44",
        trunk_zero: true,
        legal_forms: &["Ltd", "Limited", "LLP"],
    },
    Country {
        code: "IE",
        calling_code: "353",
        trunk_zero: true,
        legal_forms: &["Ltd", "Limited", "DAC"],
    },
    Country {
        code: "DE",
        calling_code: "49",
        trunk_zero: true,
        legal_forms: &["GmbH", "GmbH & Co. KG", "UG (haftungsbeschränkt)", "e.K."],
    },
    Country {
        code: "FR",
        calling_code: "33",
        trunk_zero: true,
        legal_forms: &["SARL", "SAS", "S.A."],
    },
    Country {
        code: "ES",
        calling_code: "34",
        trunk_zero: false,
        legal_forms: &["S.L.", "S.A.", "S.L.U."],
    },
    Country {
        code: "IT",
        calling_code: "39",
        trunk_zero: false,
        legal_forms: &["S.r.l.", "S.p.A.", "S.n.c."],
    },
    Country {
        code: "NL",
        calling_code: "31",
        trunk_zero: true,
        legal_forms: &["B.V.", "V.O.F."],
    },
    Country {
        code: "US",
        calling_code: "1",
        trunk_zero: false,
        legal_forms: &["Inc.", "LLC", "Co.", "Corp."],
    },
    Country {
        code: "CA",
        calling_code: "1",
        trunk_zero: false,
        legal_forms: &["Inc.", "Ltd."],
    },
    Country {
        code: "AU",
        calling_code: "61",
        trunk_zero: true,
        legal_forms: &["Pty Ltd"],
    },
];

/// City centres. Phone templates use the ranges reserved for drama/fiction where they exist:
/// Ofcom (GB: 0xxx 496 0xxx, 020 7946 0xxx), BNetzA (DE: 030 23125 xxx, 040 66969 xxx,
/// 089 99998 xxx, 0221 4710 xxx, 069 90009 xxx), ARCEP (FR: 01 99 00, 04 65 71, 05 36 49),
/// NANP (US/CA: 555-0100 to 555-0199), ACMA (AU: 02/03 5550 xxxx).
#[rustfmt::skip]
const CITIES: &[City] = &[
    city("London", "GB", 51.5074, -0.1278, 10, Lang::En, &["020 7946 0XXX"]),
    city("Manchester", "GB", 53.4808, -2.2426, 4, Lang::En, &["0161 496 0XXX"]),
    city("Birmingham", "GB", 52.4862, -1.8904, 4, Lang::En, &["0121 496 0XXX"]),
    city("Leeds", "GB", 53.8008, -1.5491, 3, Lang::En, &["0113 496 0XXX"]),
    city("Glasgow", "GB", 55.8642, -4.2518, 3, Lang::En, &["0141 496 0XXX"]),
    city("Edinburgh", "GB", 55.9533, -3.1883, 2, Lang::En, &["0131 496 0XXX"]),
    city("Bristol", "GB", 51.4545, -2.5879, 2, Lang::En, &["0117 496 0XXX"]),
    city("Liverpool", "GB", 53.4084, -2.9916, 2, Lang::En, &["0151 496 0XXX"]),
    city("Dublin", "IE", 53.3498, -6.2603, 4, Lang::En, &["01 555 XXXX"]),
    city("Cork", "IE", 51.8985, -8.4756, 1, Lang::En, &["021 455 XXXX"]),
    city("Berlin", "DE", 52.5200, 13.4050, 6, Lang::De, &["030 23125 XXX"]),
    city("Hamburg", "DE", 53.5511, 9.9937, 4, Lang::De, &["040 66969 XXX"]),
    city("Munich", "DE", 48.1351, 11.5820, 4, Lang::De, &["089 99998 XXX"]),
    city("Cologne", "DE", 50.9375, 6.9603, 3, Lang::De, &["0221 4710 XXX"]),
    city("Frankfurt", "DE", 50.1109, 8.6821, 3, Lang::De, &["069 90009 XXX"]),
    city("Paris", "FR", 48.8566, 2.3522, 8, Lang::Fr, &["01 99 00 XX XX"]),
    city("Lyon", "FR", 45.7640, 4.8357, 3, Lang::Fr, &["04 65 71 XX XX"]),
    city("Marseille", "FR", 43.2965, 5.3698, 3, Lang::Fr, &["04 65 71 XX XX"]),
    city("Toulouse", "FR", 43.6047, 1.4442, 2, Lang::Fr, &["05 36 49 XX XX"]),
    city("Madrid", "ES", 40.4168, -3.7038, 6, Lang::Es, &["91 5XX XX XX"]),
    city("Barcelona", "ES", 41.3874, 2.1686, 5, Lang::Es, &["93 4XX XX XX"]),
    city("Valencia", "ES", 39.4699, -0.3763, 2, Lang::Es, &["96 3XX XX XX"]),
    city("Rome", "IT", 41.9028, 12.4964, 5, Lang::It, &["06 4XXX XXXX"]),
    city("Milan", "IT", 45.4642, 9.1900, 5, Lang::It, &["02 8XXX XXXX"]),
    city("Naples", "IT", 40.8518, 14.2681, 3, Lang::It, &["081 5XX XXXX"]),
    city("Amsterdam", "NL", 52.3676, 4.9041, 3, Lang::Nl, &["020 5XX XXXX"]),
    city("Rotterdam", "NL", 51.9244, 4.4777, 2, Lang::Nl, &["010 4XX XXXX"]),
    city(
        "New York",
        "US",
        40.7128,
        -74.0060,
        8,
        Lang::En,
        &["(212) 555-01XX", "(646) 555-01XX", "(718) 555-01XX", "(917) 555-01XX", "(347) 555-01XX"],
    ),
    city(
        "Chicago",
        "US",
        41.8781,
        -87.6298,
        5,
        Lang::En,
        &["(312) 555-01XX", "(773) 555-01XX", "(872) 555-01XX"],
    ),
    city(
        "San Francisco",
        "US",
        37.7749,
        -122.4194,
        3,
        Lang::En,
        &["(415) 555-01XX", "(628) 555-01XX"],
    ),
    city("Austin", "US", 30.2672, -97.7431, 2, Lang::En, &["(512) 555-01XX", "(737) 555-01XX"]),
    city(
        "Toronto",
        "CA",
        43.6532,
        -79.3832,
        5,
        Lang::En,
        &["(416) 555-01XX", "(647) 555-01XX", "(437) 555-01XX"],
    ),
    city("Vancouver", "CA", 49.2827, -123.1207, 3, Lang::En, &["(604) 555-01XX", "(778) 555-01XX"]),
    city("Montreal", "CA", 45.5019, -73.5674, 3, Lang::Fr, &["(514) 555-01XX", "(438) 555-01XX"]),
    city("Sydney", "AU", -33.8688, 151.2093, 5, Lang::En, &["02 5550 XXXX"]),
    city("Melbourne", "AU", -37.8136, 144.9631, 5, Lang::En, &["03 5550 XXXX"]),
];

const fn city(
    name: &'static str,
    country: &'static str,
    lat: f64,
    lng: f64,
    weight: u32,
    lang: Lang,
    phones: &'static [&'static str],
) -> City {
    City {
        name,
        country,
        lat,
        lng,
        weight,
        lang,
        phones,
    }
}

struct Trade {
    /// Stored in `categories`.
    category: &'static str,
    /// For descriptions ("a plumbing and heating firm in Leeds").
    noun: &'static str,
    /// The word in a business name, by [`Lang`]: En, De, Fr, Es, It, Nl.
    names: [&'static str; 6],
    services: [&'static str; 3],
}

const fn trade(
    category: &'static str,
    noun: &'static str,
    names: [&'static str; 6],
    services: [&'static str; 3],
) -> Trade {
    Trade {
        category,
        noun,
        names,
        services,
    }
}

#[rustfmt::skip]
const TRADES: &[Trade] = &[
    trade("plumber", "plumbing and heating firm",
        ["Plumbing", "Sanitär", "Plomberie", "Fontanería", "Idraulica", "Loodgietersbedrijf"],
        ["boiler servicing", "bathroom installations", "emergency leak repairs"]),
    trade("electrician", "electrical contractor",
        ["Electrical", "Elektrotechnik", "Électricité", "Electricidad", "Impianti Elettrici", "Elektrotechniek"],
        ["rewiring", "EV charger installation", "fault finding"]),
    trade("bakery", "bakery",
        ["Bakery", "Bäckerei", "Boulangerie", "Panadería", "Panificio", "Bakkerij"],
        ["sourdough bread", "celebration cakes", "fresh pastries"]),
    trade("cafe", "café",
        ["Café", "Café", "Café", "Cafetería", "Caffè", "Koffiehuis"],
        ["specialty coffee", "homemade cakes", "all-day breakfasts"]),
    trade("dentist", "dental practice",
        ["Dental Practice", "Zahnarztpraxis", "Cabinet Dentaire", "Clínica Dental", "Studio Dentistico", "Tandartspraktijk"],
        ["check-ups", "teeth whitening", "emergency appointments"]),
    trade("hairdresser", "hair salon",
        ["Hair Studio", "Friseursalon", "Salon de Coiffure", "Peluquería", "Parrucchiere", "Kapsalon"],
        ["cuts and colour", "bridal styling", "barbering"]),
    trade("florist", "florist",
        ["Florist", "Blumenhaus", "Fleuriste", "Floristería", "Fioreria", "Bloemenwinkel"],
        ["wedding flowers", "same-day delivery", "seasonal bouquets"]),
    trade("locksmith", "locksmith",
        ["Locksmiths", "Schlüsseldienst", "Serrurerie", "Cerrajería", "Fabbro", "Slotenmaker"],
        ["lock changes", "24-hour lockouts", "safe opening"]),
    trade("carpenter", "joinery workshop",
        ["Joinery", "Schreinerei", "Menuiserie", "Carpintería", "Falegnameria", "Timmerbedrijf"],
        ["fitted wardrobes", "bespoke kitchens", "door hanging"]),
    trade("painter", "painting and decorating firm",
        ["Decorators", "Malerbetrieb", "Peinture", "Pinturas", "Imbianchino", "Schildersbedrijf"],
        ["interior painting", "wallpapering", "exterior coatings"]),
    trade("roofer", "roofing contractor",
        ["Roofing", "Dachdeckerei", "Couverture", "Tejados", "Coperture", "Dakdekkersbedrijf"],
        ["flat roofs", "tile repairs", "gutter cleaning"]),
    trade("builder", "building contractor",
        ["Builders", "Bauunternehmen", "Maçonnerie", "Construcciones", "Edilizia", "Bouwbedrijf"],
        ["extensions", "loft conversions", "renovations"]),
    trade("car_repair", "car repair garage",
        ["Motors", "Autowerkstatt", "Garage", "Taller Mecánico", "Autofficina", "Autogarage"],
        ["servicing", "annual inspections", "tyres and brakes"]),
    trade("butcher", "butcher's shop",
        ["Butchers", "Metzgerei", "Boucherie", "Carnicería", "Macelleria", "Slagerij"],
        ["free-range meat", "homemade sausages", "barbecue packs"]),
    trade("pharmacy", "pharmacy",
        ["Pharmacy", "Apotheke", "Pharmacie", "Farmacia", "Farmacia", "Apotheek"],
        ["prescriptions", "travel vaccinations", "health checks"]),
    trade("optician", "opticians",
        ["Opticians", "Optik", "Opticien", "Óptica", "Ottica", "Opticien"],
        ["eye tests", "designer frames", "contact lenses"]),
    trade("restaurant", "restaurant",
        ["Kitchen", "Restaurant", "Restaurant", "Restaurante", "Trattoria", "Restaurant"],
        ["seasonal menus", "private dining", "takeaway"]),
    trade("bar", "bar",
        ["Tavern", "Kneipe", "Bar", "Bar", "Bar", "Café"],
        ["craft beer", "live music", "quiz nights"]),
    trade("bookshop", "bookshop",
        ["Books", "Buchhandlung", "Librairie", "Librería", "Libreria", "Boekhandel"],
        ["new and second-hand books", "author events", "special orders"]),
    trade("accountant", "accountancy practice",
        ["Accountants", "Steuerberatung", "Expertise Comptable", "Asesoría", "Studio Commercialista", "Accountantskantoor"],
        ["tax returns", "payroll", "bookkeeping"]),
    trade("lawyer", "law firm",
        ["Solicitors", "Rechtsanwälte", "Avocats", "Abogados", "Studio Legale", "Advocatenkantoor"],
        ["conveyancing", "employment law", "wills and probate"]),
    trade("veterinarian", "veterinary clinic",
        ["Veterinary Clinic", "Tierarztpraxis", "Clinique Vétérinaire", "Clínica Veterinaria", "Clinica Veterinaria", "Dierenkliniek"],
        ["vaccinations", "pet surgery", "dental care for pets"]),
    trade("physiotherapist", "physiotherapy clinic",
        ["Physiotherapy", "Physiotherapie", "Kinésithérapie", "Fisioterapia", "Fisioterapia", "Fysiotherapie"],
        ["sports injuries", "back pain treatment", "rehabilitation"]),
    trade("gym", "gym",
        ["Fitness", "Fitnessstudio", "Salle de Sport", "Gimnasio", "Palestra", "Sportschool"],
        ["personal training", "group classes", "free weights"]),
    trade("cleaning", "cleaning company",
        ["Cleaning Services", "Gebäudereinigung", "Nettoyage", "Limpiezas", "Impresa di Pulizie", "Schoonmaakbedrijf"],
        ["office cleaning", "end-of-tenancy cleans", "window cleaning"]),
    trade("gardener", "landscaping company",
        ["Landscapes", "Gartenbau", "Paysagiste", "Jardinería", "Giardinaggio", "Hoveniersbedrijf"],
        ["garden design", "lawn care", "hedge trimming"]),
    trade("tailor", "tailor",
        ["Tailoring", "Schneiderei", "Retouches", "Sastrería", "Sartoria", "Kleermakerij"],
        ["alterations", "made-to-measure suits", "repairs"]),
    trade("printer", "print shop",
        ["Print", "Druckerei", "Imprimerie", "Imprenta", "Tipografia", "Drukkerij"],
        ["business cards", "large-format posters", "same-day printing"]),
    trade("photographer", "photography studio",
        ["Photography", "Fotostudio", "Studio Photo", "Fotografía", "Studio Fotografico", "Fotostudio"],
        ["weddings", "portraits", "product photography"]),
    trade("estate_agent", "estate agency",
        ["Estate Agents", "Immobilien", "Agence Immobilière", "Inmobiliaria", "Agenzia Immobiliare", "Makelaardij"],
        ["sales", "lettings", "property valuations"]),
    trade("travel_agent", "travel agency",
        ["Travel", "Reisebüro", "Agence de Voyages", "Viajes", "Agenzia Viaggi", "Reisbureau"],
        ["package holidays", "city breaks", "group travel"]),
    trade("bicycle_shop", "bike shop",
        ["Cycles", "Fahrradladen", "Cycles", "Bicicletas", "Cicli", "Fietsenwinkel"],
        ["bike repairs", "e-bikes", "cycle hire"]),
    trade("hardware_store", "hardware store",
        ["Hardware", "Eisenwaren", "Quincaillerie", "Ferretería", "Ferramenta", "IJzerwaren"],
        ["tools", "key cutting", "paint mixing"]),
    trade("greengrocer", "greengrocer",
        ["Greengrocers", "Obst und Gemüse", "Primeur", "Frutería", "Fruttivendolo", "Groentenwinkel"],
        ["local produce", "fruit boxes", "organic vegetables"]),
    trade("pet_shop", "pet shop",
        ["Pet Supplies", "Zoohandlung", "Animalerie", "Tienda de Mascotas", "Negozio per Animali", "Dierenwinkel"],
        ["pet food", "grooming", "aquarium supplies"]),
    trade("tattoo_studio", "tattoo studio",
        ["Tattoo", "Tattoo Studio", "Salon de Tatouage", "Estudio de Tatuajes", "Studio Tatuaggi", "Tattooshop"],
        ["custom designs", "cover-ups", "piercing"]),
    trade("laundry", "launderette",
        ["Laundrette", "Wäscherei", "Laverie", "Lavandería", "Lavanderia", "Wasserette"],
        ["service washes", "dry cleaning", "ironing"]),
    trade("architect", "architecture practice",
        ["Architects", "Architekturbüro", "Cabinet d'Architecture", "Estudio de Arquitectura", "Studio di Architettura", "Architectenbureau"],
        ["planning applications", "house extensions", "interior design"]),
    trade("it_services", "IT support company",
        ["IT Solutions", "IT-Service", "Informatique", "Servicios Informáticos", "Servizi Informatici", "IT-Diensten"],
        ["computer repairs", "network installation", "managed IT support"]),
    trade("removals", "removals company",
        ["Removals", "Umzüge", "Déménagements", "Mudanzas", "Traslochi", "Verhuisbedrijf"],
        ["house moves", "office relocations", "storage"]),
];

#[rustfmt::skip]
const ADJECTIVES: &[&str] = &[
    "Northern", "Premier", "City", "Central", "Express", "Reliable", "Golden", "Royal", "Classic",
    "Modern", "Elite", "Village", "Riverside", "Parkside", "Highland", "Coastal", "Metro", "Bright",
    "Swift", "Trusted", "Quality", "Corner", "Little", "Old Town", "Green Leaf", "Blue Door",
    "Red Brick", "Silver Birch", "Oak Tree", "Harbour",
];

#[rustfmt::skip]
fn first_names(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::En => &[
            "James", "Sarah", "David", "Emma", "Michael", "Laura", "Tom", "Sophie", "Daniel",
            "Rachel", "Chris", "Hannah", "Mark", "Claire", "Paul", "Amy", "Ben", "Kate", "Sam", "Lucy",
        ],
        Lang::De => &[
            "Hans", "Petra", "Jürgen", "Sabine", "Thomas", "Andrea", "Stefan", "Claudia", "Michael",
            "Monika", "Frank", "Katrin", "Uwe", "Anja", "Jens", "Birgit", "Klaus", "Susanne", "Dirk", "Heike",
        ],
        Lang::Fr => &[
            "Jean", "Marie", "Pierre", "Sophie", "Michel", "Isabelle", "Philippe", "Nathalie", "Alain",
            "Céline", "Éric", "Sandrine", "Laurent", "Valérie", "Nicolas", "Hélène", "Olivier", "Camille",
            "Thierry", "Aurélie",
        ],
        Lang::Es => &[
            "José", "María", "Antonio", "Carmen", "Manuel", "Ana", "Francisco", "Laura", "Javier", "Lucía",
            "Carlos", "Marta", "Miguel", "Elena", "Pablo", "Cristina", "Jorge", "Isabel", "Luis", "Pilar",
        ],
        Lang::It => &[
            "Marco", "Giulia", "Giuseppe", "Francesca", "Luca", "Chiara", "Andrea", "Sara", "Alessandro",
            "Valentina", "Matteo", "Elena", "Davide", "Federica", "Stefano", "Paola", "Roberto", "Silvia",
            "Paolo", "Laura",
        ],
        Lang::Nl => &[
            "Jan", "Anna", "Pieter", "Sanne", "Kees", "Lotte", "Bram", "Femke", "Joost", "Eva", "Ruud",
            "Inge", "Maarten", "Anouk", "Wouter", "Marieke", "Daan", "Ilse", "Thijs", "Esther",
        ],
    }
}

#[rustfmt::skip]
fn surnames(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::En => &[
            "Smith", "Jones", "Taylor", "Brown", "Williams", "Wilson", "Johnson", "Davies",
            "Robinson", "Wright", "Thompson", "Evans", "Walker", "White", "Roberts", "Green",
            "Hall", "Wood", "Jackson", "Clarke", "Patel", "Khan", "Murphy", "Kelly", "O'Brien",
            "Byrne", "Ryan", "O'Connor", "Walsh", "Hughes", "Edwards", "Lewis", "Harris",
            "Martin", "Cooper", "King", "Baker", "Turner", "Hill", "Moore",
        ],
        Lang::De => &[
            "Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker",
            "Schulz", "Hoffmann", "Schäfer", "Koch", "Bauer", "Richter", "Klein", "Wolf",
            "Schröder", "Neumann", "Schwarz", "Zimmermann", "Braun", "Krüger", "Hofmann",
            "Hartmann", "Lange", "Schmitt", "Werner", "Schmitz", "Krause", "Meier", "Lehmann",
            "Schmid", "Schulze", "Maier", "Köhler", "Herrmann", "König", "Walter", "Mayer", "Huber",
        ],
        Lang::Fr => &[
            "Martin", "Bernard", "Dubois", "Thomas", "Robert", "Richard", "Petit", "Durand",
            "Leroy", "Moreau", "Simon", "Laurent", "Lefèvre", "Michel", "Garcia", "David",
            "Bertrand", "Roux", "Vincent", "Fournier", "Morel", "Girard", "André", "Lefebvre",
            "Mercier", "Dupont", "Lambert", "Bonnet", "François", "Martinez", "Legrand", "Garnier",
            "Faure", "Rousseau", "Blanc", "Guérin", "Muller", "Henry", "Roussel", "Nicolas",
        ],
        Lang::Es => &[
            "García", "Rodríguez", "González", "Fernández", "López", "Martínez", "Sánchez",
            "Pérez", "Gómez", "Martín", "Jiménez", "Ruiz", "Hernández", "Díaz", "Moreno", "Muñoz",
            "Álvarez", "Romero", "Alonso", "Gutiérrez", "Navarro", "Torres", "Domínguez",
            "Vázquez", "Ramos", "Gil", "Ramírez", "Serrano", "Blanco", "Molina", "Morales",
            "Suárez", "Ortega", "Delgado", "Castro", "Ortiz", "Rubio", "Marín", "Sanz", "Iglesias",
        ],
        Lang::It => &[
            "Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Romano", "Colombo", "Ricci",
            "Marino", "Greco", "Bruno", "Gallo", "Conti", "De Luca", "Mancini", "Costa",
            "Giordano", "Rizzo", "Lombardi", "Moretti", "Barbieri", "Fontana", "Santoro",
            "Mariani", "Rinaldi", "Caruso", "Ferrara", "Galli", "Martini", "Leone", "Longo",
            "Gentile", "Martinelli", "Vitale", "Lombardo", "Serra", "Coppola", "De Santis",
            "D'Angelo", "Marchetti",
        ],
        Lang::Nl => &[
            "de Jong", "Jansen", "de Vries", "van den Berg", "van Dijk", "Bakker", "Janssen",
            "Visser", "Smit", "Meijer", "de Boer", "Mulder", "de Groot", "Bos", "Vos", "Peters",
            "Hendriks", "van Leeuwen", "Dekker", "Brouwer", "de Wit", "Dijkstra", "Smits",
            "de Graaf", "van der Meer", "van der Linden", "Kok", "Jacobs", "de Haan", "Vermeulen",
            "van den Heuvel", "van der Veen", "van den Broek", "de Bruijn", "de Bruin",
            "van der Heijden", "Schouten", "van Beek", "Willems", "van Vliet",
        ],
    }
}
