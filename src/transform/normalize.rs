//! Identity keys: the same real-world fact written the way different agents
//! write it must produce the same key, otherwise matching sees two businesses
//! where there is one. Keys are for comparison only; the record keeps what
//! the agents actually wrote.

use phonenumber::country::Id as RegionId;
use url::{Host, Url};

/// Legal-form tokens (as they come out of [`words`]) that say how a business
/// is registered, not what it is called, so they are stripped from the end of
/// names. Dotted forms such as "S.L." arrive as separate letters ("s l").
const LEGAL_FORM_SUFFIXES: &[&str] = &[
    "ltd",
    "limited",
    "llc",
    "l l c",
    "inc",
    "incorporated",
    "plc",
    "p l c",
    "gmbh",
    "g m b h",
    "ag",
    "sa",
    "s a",
    "sl",
    "s l",
    "srl",
    "s r l",
    "sarl",
    "s a r l",
    "bv",
    "b v",
    "nv",
    "n v",
    "oy",
    "ab",
    "as",
    "a s",
    "aps",
    "kg",
    "co",
    "and co",
    "and company",
    "corp",
    "corporation",
    "company",
    "pty",
    "llp",
    "l l p",
    "lp",
    "ug",
    "haftungsbeschrankt",
    "se",
    "spa",
    "s p a",
    "sas",
    "s a s",
];

/// Normalised website: `host` or `host/path`, e.g. `acme.co.uk/branches/leeds`.
///
/// Query and fragment are dropped because they carry tracking and page state,
/// not identity; the path is kept because a branch page tells branches apart.
pub fn website_key(raw: &str) -> Option<String> {
    let url = parse_web_url(raw)?;
    let host = normalized_host(&url)?;
    Some(format!("{host}{}", path_without_trailing_slash(&url)))
}

/// Just the normalised host of [`website_key`], e.g. `acme.co.uk`.
pub fn website_host(raw: &str) -> Option<String> {
    normalized_host(&parse_web_url(raw)?)
}

/// E.164 form of a valid phone number, e.g. `+442079460958`.
///
/// `country_code` (ISO 3166-1 alpha-2) is only the default region for numbers
/// written nationally; numbers written with `+` or an international prefix
/// keep their own country. Extensions are dropped: the line identifies the
/// business, the extension only a desk inside it.
pub fn phone_key(raw: &str, country_code: Option<&str>) -> Option<String> {
    let raw = raw.trim();
    if raw.is_empty() {
        return None;
    }
    let region = country_code.and_then(region_id);
    let number = phonenumber::parse(region, raw).ok()?;
    // Formatted by hand: the crate's Display reports an error (and
    // `to_string` would panic) for country codes without metadata.
    number
        .is_valid()
        .then(|| format!("+{}{}", number.code().value(), number.national()))
}

/// Business name reduced to what it is called: accents folded, lowercase,
/// `&` read as "and", punctuation gone, a qualifier in brackets ("Spago (Los
/// Angeles)"), a leading "the" and trailing legal forms ("Ltd", "GmbH & Co. KG",
/// "S.L.") dropped.
///
/// A name made only of such words keeps them all, so that any name with
/// letters still has a key.
pub fn name_key(raw: &str) -> String {
    let all_words = with_and(words(&without_bracketed_qualifier(raw)));
    let core = without_legal_form_suffixes(without_leading_article(&all_words));
    if core.is_empty() {
        all_words.join(" ")
    } else {
        core.join(" ")
    }
}

/// A name key with the digraphs people type for letters their keyboard lacks read as the plain
/// letter: German "ae", "oe", "ue" for ä, ö, ü ("Baeckerei Mueller" / "Bäckerei Müller"),
/// Scandinavian "oe" for ø and "aa" for å. Name keys fold ä to "a" (transliteration drops the
/// dots), so both spellings meet here. Only for comparing two keys: a few unrelated names meet
/// too ("joe" / "jo"), which names written that close usually are anyway.
pub fn digraph_fold(key: &str) -> std::borrow::Cow<'_, str> {
    // Most keys hold no digraph: then no replacement below could change anything, and matching
    // compares every candidate's key this way.
    if !["aa", "ae", "oe", "ue"].iter().any(|d| key.contains(d)) {
        return std::borrow::Cow::Borrowed(key);
    }
    std::borrow::Cow::Owned(
        key.replace("aa", "a")
            .replace("ae", "a")
            .replace("oe", "o")
            .replace("ue", "u"),
    )
}

/// Whether a name ends in a legal form ("Acme Ltd", "Müller GmbH & Co. KG").
pub fn has_legal_form(raw: &str) -> bool {
    let all_words = with_and(words(raw));
    let core = without_legal_form_suffixes(&all_words);
    !core.is_empty() && core.len() < all_words.len()
}

/// Listing or request title for comparison: accents folded, lowercase,
/// punctuation gone. Nothing is stripped: in a title every word may matter.
pub fn title_key(raw: &str) -> String {
    words(raw).join(" ")
}

/// Reference to the record at the source (an id or a URL).
///
/// URLs are normalised like websites but keep the query, because sources
/// often put the record id there (`?id=123`); only `utm_*` tracking is
/// removed. Anything else is kept exactly (trimmed), since ids can be
/// case-sensitive.
pub fn source_ref_key(raw: &str) -> Option<String> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return None;
    }
    let url_key = parse_explicit_web_url(trimmed).and_then(|url| url_reference_key(&url));
    Some(url_key.unwrap_or_else(|| trimmed.to_owned()))
}

/// Key for deduplicating links: like [`source_ref_key`] but, as for websites,
/// a missing scheme is assumed to be https. Falls back to the trimmed text.
pub fn link_key(raw: &str) -> Option<String> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return None;
    }
    let url_key = parse_web_url(trimmed)
        .filter(|url| normalized_host(url).is_some())
        .and_then(|url| url_reference_key(&url));
    Some(url_key.unwrap_or_else(|| trimmed.to_owned()))
}

fn parse_web_url(raw: &str) -> Option<Url> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return None;
    }
    if has_explicit_scheme(trimmed) {
        parse_explicit_web_url(trimmed)
    } else {
        Url::parse(&format!("https://{}", trimmed.trim_start_matches('/'))).ok()
    }
}

fn parse_explicit_web_url(text: &str) -> Option<Url> {
    if !has_explicit_scheme(text) {
        return None;
    }
    Url::parse(text).ok().filter(is_web_url)
}

fn is_web_url(url: &Url) -> bool {
    matches!(url.scheme(), "http" | "https")
}

/// "acme.co.uk:8080" would parse as a URL with scheme "acme.co.uk", so a
/// prefix with a dot in it is taken as a host, not a scheme.
fn has_explicit_scheme(text: &str) -> bool {
    let Some((scheme, _)) = text.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-')
}

/// A dotless host (localhost, an intranet name) or a bare IP address does
/// not identify a business on the web.
fn normalized_host(url: &Url) -> Option<String> {
    let Some(Host::Domain(domain)) = url.host() else {
        return None;
    };
    let host = without_www(domain.trim_end_matches('.'));
    host.contains('.').then(|| host.to_owned())
}

fn without_www(host: &str) -> &str {
    host.strip_prefix("www.")
        .filter(|rest| rest.contains('.'))
        .unwrap_or(host)
}

fn path_without_trailing_slash(url: &Url) -> &str {
    url.path().trim_end_matches('/')
}

fn url_reference_key(url: &Url) -> Option<String> {
    let host = url.host_str()?.trim_end_matches('.');
    Some(format!(
        "{}{}{}",
        without_www(host),
        path_without_trailing_slash(url),
        query_without_tracking(url.query())
    ))
}

/// Returns the query with its leading `?`, or an empty string when nothing
/// but tracking parameters was there.
fn query_without_tracking(query: Option<&str>) -> String {
    let kept: Vec<&str> = query
        .unwrap_or_default()
        .split('&')
        .filter(|pair| !pair.is_empty() && !is_tracking_parameter(pair))
        .collect();
    if kept.is_empty() {
        String::new()
    } else {
        format!("?{}", kept.join("&"))
    }
}

fn is_tracking_parameter(pair: &str) -> bool {
    let name = pair.split('=').next().unwrap_or_default();
    name.to_ascii_lowercase().starts_with("utm_")
}

fn region_id(country_code: &str) -> Option<RegionId> {
    let code = country_code.trim().to_ascii_uppercase();
    // "UK" is not ISO 3166-1 but is what people type for the United Kingdom.
    let code = if code == "UK" { "GB" } else { code.as_str() };
    code.parse().ok()
}

/// A qualifier in brackets is not part of the name: guides add the city or district a venue is
/// in ("Spago (Los Angeles)", "Osteria Nonna [Downtown]"). Kept when nothing else is left.
fn without_bracketed_qualifier(raw: &str) -> std::borrow::Cow<'_, str> {
    if !raw.contains(['(', '[']) {
        return std::borrow::Cow::Borrowed(raw);
    }
    let mut kept = String::with_capacity(raw.len());
    let mut depth = 0usize;
    for c in raw.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            _ if depth == 0 => kept.push(c),
            _ => {}
        }
    }
    if words(&kept).is_empty() {
        std::borrow::Cow::Borrowed(raw)
    } else {
        std::borrow::Cow::Owned(kept)
    }
}

/// The lowercase ASCII words of a text, folded as names are (for other keys built from words).
pub fn folded_words(raw: &str) -> Vec<String> {
    words(raw)
}

/// Lowercase ASCII words. Letters and digits are transliterated; apostrophes
/// vanish so "Joe's" and "Joes" agree; any other symbol (including emoji,
/// which deunicode would otherwise spell out as words) separates words.
fn words(raw: &str) -> Vec<String> {
    let mut folded = String::with_capacity(raw.len());
    for c in raw.chars() {
        if c.is_alphanumeric() {
            push_transliterated(&mut folded, c);
        } else if c == '&' {
            folded.push_str(" and ");
        } else if !is_apostrophe(c) && !is_combining_mark(c) {
            folded.push(' ');
        }
    }
    folded.split_whitespace().map(str::to_owned).collect()
}

fn push_transliterated(folded: &mut String, c: char) {
    for ascii in deunicode::deunicode_char(c).unwrap_or(" ").chars() {
        if ascii.is_ascii_alphanumeric() {
            folded.push(ascii.to_ascii_lowercase());
        } else {
            folded.push(' ');
        }
    }
}

fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '`' | '\u{2018}' | '\u{2019}' | '\u{02BC}')
}

/// Decomposed accents ("e" + U+0301) must not split a word in two.
fn is_combining_mark(c: char) -> bool {
    matches!(c,
        '\u{0300}'..='\u{036F}'
        | '\u{1AB0}'..='\u{1AFF}'
        | '\u{1DC0}'..='\u{1DFF}'
        | '\u{20D0}'..='\u{20FF}'
        | '\u{FE20}'..='\u{FE2F}')
}

/// "and" as the languages served write it, between two words: "Müller und Söhne", "Dupont et
/// Fils", "Janssen en Zonen", "Hermanos y Primos", "Rossi e Figli". Only between words, so a
/// name that is a single letter ("Y Bar") or ends in one keeps it.
const AND_WORDS: &[&str] = &["et", "und", "en", "y", "e", "i", "og", "och"];

fn with_and(mut words: Vec<String>) -> Vec<String> {
    let last = words.len().saturating_sub(1);
    for (position, word) in words.iter_mut().enumerate() {
        if position > 0 && position < last && AND_WORDS.contains(&word.as_str()) {
            *word = "and".to_owned();
        }
    }
    words
}

fn without_leading_article(words: &[String]) -> &[String] {
    match words.split_first() {
        Some((first, rest)) if first == "the" => rest,
        _ => words,
    }
}

fn without_legal_form_suffixes(mut words: &[String]) -> &[String] {
    while let Some(suffix_len) = legal_form_suffix_len(words) {
        words = &words[..words.len() - suffix_len];
    }
    words
}

/// Length in words of the longest legal form ending `words`, so that
/// "s a s" is taken whole rather than as "a s" after a stray "s".
fn legal_form_suffix_len(words: &[String]) -> Option<usize> {
    LEGAL_FORM_SUFFIXES
        .iter()
        .map(|suffix| suffix.split(' ').collect::<Vec<_>>())
        .filter(|suffix| ends_with_words(words, suffix))
        .map(|suffix| suffix.len())
        .max()
}

fn ends_with_words(words: &[String], suffix: &[&str]) -> bool {
    suffix.len() <= words.len()
        && words[words.len() - suffix.len()..]
            .iter()
            .zip(suffix)
            .all(|(word, expected)| word == expected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn website_with_www_uppercase_and_trailing_slash_is_the_bare_host() {
        assert_eq!(
            website_key("https://www.Acme.co.uk/").as_deref(),
            Some("acme.co.uk")
        );
    }

    #[test]
    fn website_without_scheme_is_read_as_https() {
        assert_eq!(website_key("acme.co.uk").as_deref(), Some("acme.co.uk"));
        assert_eq!(
            website_key("www.acme.co.uk/contact").as_deref(),
            Some("acme.co.uk/contact")
        );
    }

    #[test]
    fn website_path_is_kept_but_query_fragment_and_trailing_slash_are_not() {
        assert_eq!(
            website_key("https://acme.co.uk/branches/leeds/?utm=1").as_deref(),
            Some("acme.co.uk/branches/leeds")
        );
        assert_eq!(
            website_key("http://acme.co.uk/branches/leeds#opening-hours").as_deref(),
            Some("acme.co.uk/branches/leeds")
        );
    }

    #[test]
    fn website_port_and_credentials_are_ignored() {
        assert_eq!(
            website_key("https://user:secret@www.acme.co.uk:8443/shop").as_deref(),
            Some("acme.co.uk/shop")
        );
        assert_eq!(
            website_key("acme.co.uk:8080/shop").as_deref(),
            Some("acme.co.uk/shop")
        );
    }

    #[test]
    fn website_path_keeps_its_case_because_servers_may_care() {
        assert_eq!(
            website_key("https://ACME.co.uk/Branches/Leeds").as_deref(),
            Some("acme.co.uk/Branches/Leeds")
        );
    }

    #[test]
    fn website_with_international_domain_agrees_with_its_punycode_form() {
        let unicode = website_key("https://www.Bäckerei-Müller.de/");
        assert_eq!(unicode.as_deref(), Some("xn--bckerei-mller-bfb28a.de"));
        assert_eq!(unicode, website_key("xn--bckerei-mller-bfb28a.de"));
    }

    #[test]
    fn website_rejects_empty_dotless_ip_and_non_web_input() {
        for raw in [
            "",
            "   ",
            "localhost",
            "http://intranet/page",
            "https://192.168.1.20/",
            "mailto:info@acme.co.uk",
            "ftp://files.acme.co.uk/",
            "tel:+441614960000",
            "not a website",
            "https://",
        ] {
            assert_eq!(website_key(raw), None, "{raw:?}");
        }
    }

    #[test]
    fn website_keeps_www_when_it_is_the_whole_domain_name() {
        assert_eq!(website_key("www.com").as_deref(), Some("www.com"));
    }

    #[test]
    fn website_host_drops_the_path() {
        assert_eq!(
            website_host("https://www.acme.co.uk/branches/leeds/").as_deref(),
            Some("acme.co.uk")
        );
        assert_eq!(website_host("mailto:info@acme.co.uk"), None);
    }

    #[test]
    fn phone_numbers_in_national_and_international_format_agree() {
        let national = phone_key("0161 496 0000", Some("GB"));
        let international = phone_key("+44 161 496 0000", Some("GB"));
        assert_eq!(national.as_deref(), Some("+441614960000"));
        assert_eq!(national, international);
    }

    #[test]
    fn phone_in_international_format_parses_without_a_country() {
        assert_eq!(
            phone_key("+44 20 7946 0958", None).as_deref(),
            Some("+442079460958")
        );
    }

    #[test]
    fn phone_in_national_format_needs_a_country() {
        assert_eq!(phone_key("020 7946 0958", None), None);
    }

    #[test]
    fn phone_keeps_its_own_country_when_written_internationally() {
        assert_eq!(
            phone_key("+49 30 12345678", Some("GB")).as_deref(),
            Some("+493012345678")
        );
    }

    #[test]
    fn phone_accepts_common_ways_of_writing_the_same_number() {
        for raw in [
            "020 7946 0958",
            "(020) 7946-0958",
            "+44 (0)20 7946 0958",
            "0044 20 7946 0958",
            "tel:+44-20-7946-0958",
            "020 7946 0958 ext. 12",
        ] {
            assert_eq!(
                phone_key(raw, Some("GB")).as_deref(),
                Some("+442079460958"),
                "{raw:?}"
            );
        }
    }

    #[test]
    fn phone_country_code_is_case_insensitive_and_uk_means_gb() {
        for country in ["gb", " GB ", "uk"] {
            assert_eq!(
                phone_key("020 7946 0958", Some(country)).as_deref(),
                Some("+442079460958"),
                "{country:?}"
            );
        }
    }

    #[test]
    fn phone_with_unknown_country_code_still_parses_international_format() {
        assert_eq!(
            phone_key("+44 20 7946 0958", Some("XX")).as_deref(),
            Some("+442079460958")
        );
        assert_eq!(phone_key("020 7946 0958", Some("XX")), None);
    }

    #[test]
    fn phone_keeps_the_italian_leading_zero() {
        assert_eq!(
            phone_key("06 1234 5678", Some("IT")).as_deref(),
            Some("+390612345678")
        );
        assert_eq!(
            phone_key("+39 06 1234 5678", None).as_deref(),
            Some("+390612345678")
        );
    }

    #[test]
    fn phone_rejects_garbage_and_invalid_numbers() {
        for raw in ["", "  ", "abc", "+++", "0", "  2 22#:", "12", "+999 1234"] {
            assert_eq!(phone_key(raw, Some("GB")), None, "{raw:?}");
        }
        assert_eq!(phone_key("99999999999999999999999999", Some("GB")), None);
    }

    #[test]
    fn phone_rejects_the_fictional_uk_mobile_range_the_metadata_marks_invalid() {
        assert_eq!(phone_key("07700 900123", Some("GB")), None);
    }

    #[test]
    fn name_loses_punctuation_case_and_legal_form() {
        assert_eq!(name_key("Acme Plumbing Ltd."), "acme plumbing");
        assert_eq!(name_key("ACME PLUMBING LIMITED"), "acme plumbing");
        assert_eq!(name_key("Acme Plumbing"), "acme plumbing");
    }

    #[test]
    fn name_folds_accents_and_strips_dotted_legal_forms() {
        assert_eq!(name_key("Café Zoë S.L."), "cafe zoe");
        assert_eq!(name_key("Cafe\u{0301} Zoe\u{0308} SL"), "cafe zoe");
    }

    #[test]
    fn name_strips_a_chain_of_legal_forms() {
        assert_eq!(name_key("Müller GmbH & Co. KG"), "muller");
        assert_eq!(name_key("Outback Tours Pty Ltd"), "outback tours");
        assert_eq!(name_key("Dupont S.A.R.L."), "dupont");
        assert_eq!(name_key("Rossi S.p.A."), "rossi");
        assert_eq!(name_key("Lefebvre S.A.S."), "lefebvre");
        assert_eq!(name_key("Schmidt UG (haftungsbeschränkt)"), "schmidt");
    }

    #[test]
    fn name_reads_ampersand_as_and() {
        assert_eq!(name_key("Fish & Chips Co"), "fish and chips");
        assert_eq!(
            name_key("Müller und Söhne GmbH"),
            name_key("Muller & Sohne")
        );
        assert_eq!(name_key("Dupont et Fils SARL"), name_key("Dupont & Fils"));
        assert_eq!(
            name_key("Janssen en Zonen B.V."),
            name_key("Janssen & Zonen")
        );
        assert_eq!(
            name_key("Hermanos y Primos S.L."),
            name_key("Hermanos & Primos")
        );
        assert_eq!(
            name_key("Rossi e Figli S.r.l."),
            name_key("Rossi and Figli")
        );
        assert_eq!(name_key("Y Bar"), "y bar");
        assert_eq!(name_key("Cafe E"), "cafe e");
        assert_eq!(name_key("Fish and Chips"), "fish and chips");
    }

    #[test]
    fn name_drops_a_leading_the() {
        assert_eq!(name_key("The Old Bakery"), "old bakery");
        assert_eq!(name_key("Theatre Royal"), "theatre royal");
    }

    #[test]
    fn name_apostrophes_do_not_split_words() {
        assert_eq!(name_key("Joe’s Café"), name_key("Joes Cafe"));
        assert_eq!(name_key("O'Brien's"), "obriens");
    }

    #[test]
    fn name_strips_legal_forms_only_at_the_end() {
        assert_eq!(name_key("Co-op Funeralcare"), "co op funeralcare");
        assert_eq!(
            name_key("Limited Edition Records"),
            "limited edition records"
        );
    }

    #[test]
    fn name_made_only_of_legal_words_keeps_them() {
        assert_eq!(name_key("The Company"), "the company");
        assert_eq!(name_key("Limited"), "limited");
        assert_eq!(name_key("S.A."), "s a");
    }

    #[test]
    fn name_ignores_emoji_and_symbols() {
        assert_eq!(name_key("Pizza 🍕 Place™"), "pizza place");
    }

    #[test]
    fn name_transliterates_other_scripts() {
        assert_eq!(name_key("Straße"), "strasse");
        assert_eq!(name_key("北京饭店"), "bei jing fan dian");
    }

    #[test]
    fn name_without_letters_or_digits_is_empty() {
        assert_eq!(name_key(""), "");
        assert_eq!(name_key(" - ! "), "");
    }

    #[test]
    fn title_is_folded_without_stripping_words() {
        assert_eq!(
            title_key("  Boiler Service & Repair — Gas Safe Ltd! "),
            "boiler service and repair gas safe ltd"
        );
        assert_eq!(title_key("The Café"), "the cafe");
    }

    #[test]
    fn source_ref_url_keeps_record_ids_in_the_query_but_drops_tracking() {
        assert_eq!(
            source_ref_key(
                "https://www.Example-Directory.com/listing/?id=AbC123&utm_source=x&UTM_Medium=y#top"
            )
            .as_deref(),
            Some("example-directory.com/listing?id=AbC123")
        );
    }

    #[test]
    fn source_ref_url_with_only_tracking_has_no_query() {
        assert_eq!(
            source_ref_key("http://directory.example.com/biz/acme-plumbing/?utm_campaign=a")
                .as_deref(),
            Some("directory.example.com/biz/acme-plumbing")
        );
    }

    #[test]
    fn source_ref_that_is_not_a_url_is_kept_as_written() {
        assert_eq!(
            source_ref_key("  osm:node/123456 ").as_deref(),
            Some("osm:node/123456")
        );
        assert_eq!(
            source_ref_key("ChIJN1t_tDeuEmsRUsoyG83frY4").as_deref(),
            Some("ChIJN1t_tDeuEmsRUsoyG83frY4")
        );
        assert_eq!(
            source_ref_key("example.com/listing/1").as_deref(),
            Some("example.com/listing/1")
        );
    }

    #[test]
    fn source_ref_empty_is_none() {
        assert_eq!(source_ref_key(""), None);
        assert_eq!(source_ref_key(" \t "), None);
    }

    #[test]
    fn link_without_scheme_agrees_with_link_with_scheme() {
        assert_eq!(
            link_key("www.instagram.com/acmeplumbing/"),
            link_key("https://instagram.com/acmeplumbing?utm_source=site")
        );
    }

    #[test]
    fn link_query_still_tells_videos_apart() {
        assert_ne!(
            link_key("https://www.youtube.com/watch?v=aaa"),
            link_key("https://www.youtube.com/watch?v=bbb")
        );
    }

    #[test]
    fn link_that_is_not_a_web_url_falls_back_to_its_text() {
        assert_eq!(
            link_key(" mailto:info@acme.co.uk ").as_deref(),
            Some("mailto:info@acme.co.uk")
        );
        assert_eq!(link_key(" "), None);
    }
}
