//! A record's selected members, each serialised by serde_json on its own, straight from the
//! record: a compiled plan (`compiled`) copies them into the response in the selection's order
//! without serialising the whole record to a string and parsing it back (that parse was a
//! planned read's largest share of CPU beyond REST's; docs/bench-log/growth.md).
//!
//! Each member's text is exactly what `serde_json::to_string` of the record writes for it: the
//! same serializer writes the value, only the record's braces and the unselected members are left
//! out. A record is a struct, or a map when it flattens a part (`Listing`'s offer core); anything
//! else is refused and the executor answers.

use serde::Serialize;
use serde::ser::{self, Impossible};

type Error = serde_json::Error;

/// The JSON text of the members named by `keys` (serde names, each once), in no particular
/// order: `get(i)` is the member `keys[i]`, `None` when the record has no such member.
pub struct Members<'k> {
    keys: &'k [String],
    text: Vec<u8>,
    spans: Vec<Option<(usize, usize)>>,
    /// Where the next member is looked for: a record's members usually come in the order the
    /// keys were selected in, so each lookup is a step.
    next: usize,
    /// A map's key, as JSON, while its value is awaited.
    pending_key: Vec<u8>,
}

impl<'k> Members<'k> {
    pub fn of<T: Serialize + ?Sized>(record: &T, keys: &'k [String]) -> Option<Members<'k>> {
        let mut members = Members {
            keys,
            text: Vec::with_capacity(1024),
            spans: vec![None; keys.len()],
            next: 0,
            pending_key: Vec::new(),
        };
        record.serialize(&mut members).ok()?;
        Some(members)
    }

    pub fn get(&self, i: usize) -> Option<&str> {
        let (start, end) = (*self.spans.get(i)?)?;
        std::str::from_utf8(&self.text[start..end]).ok()
    }

    fn member<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        let count = self.keys.len();
        let Some(at) = (self.next..count)
            .chain(0..self.next)
            .find(|&i| self.keys[i] == key)
        else {
            return Ok(());
        };
        self.next = (at + 1) % count.max(1);
        let start = self.text.len();
        serde_json::to_writer(&mut self.text, value)?;
        self.spans[at] = Some((start, self.text.len()));
        Ok(())
    }
}

fn not_a_record() -> Error {
    ser::Error::custom("a compiled plan reads structs and maps only")
}

macro_rules! refuse {
    ($($method:ident($($ty:ty),*)),* $(,)?) => {
        $(fn $method(self, $(_: $ty),*) -> Result<(), Error> { Err(not_a_record()) })*
    };
}

impl<'a, 'k> ser::Serializer for &'a mut Members<'k> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), Error>;

    refuse!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), Error> {
        Err(not_a_record())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(not_a_record())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(not_a_record())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(not_a_record())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(not_a_record())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(not_a_record())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(not_a_record())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self, Error> {
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Error> {
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(not_a_record())
    }
}

impl ser::SerializeStruct for &mut Members<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.member(key, value)
    }

    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

/// A flattened record: serde hands its members over as a map's entries.
impl ser::SerializeMap for &mut Members<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.pending_key.clear();
        serde_json::to_writer(&mut self.pending_key, key)
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        // The key as serde_json wrote it, quotes taken off: a key with escapes matches no
        // selected name, so its member is missing and the executor answers.
        let pending = std::mem::take(&mut self.pending_key);
        let key = pending
            .strip_prefix(b"\"")
            .and_then(|key| key.strip_suffix(b"\""))
            .and_then(|key| std::str::from_utf8(key).ok())
            .ok_or_else(not_a_record)?;
        let result = self.member(key, value);
        self.pending_key = pending;
        result
    }

    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[derive(Serialize)]
    struct Core {
        title: String,
        note: Option<String>,
    }

    #[derive(Serialize)]
    struct Flattened {
        id: u32,
        #[serde(flatten)]
        core: Core,
        at: chrono::DateTime<chrono::Utc>,
    }

    fn keys(names: &[&str]) -> Vec<String> {
        names.iter().copied().map(String::from).collect()
    }

    #[test]
    fn each_member_is_the_text_serde_json_writes_for_it() {
        let record = Flattened {
            id: 7,
            core: Core {
                title: "Caf\u{e9} \"Zo\u{eb}\"\n".into(),
                note: None,
            },
            at: "2026-11-29T10:05:55.123456Z".parse().unwrap(),
        };
        let whole: serde_json::Map<String, Value> =
            serde_json::from_str(&serde_json::to_string(&record).unwrap()).unwrap();
        // Selected out of the record's order, with a key the record lacks.
        let wanted = keys(&["at", "note", "missing", "title", "id"]);
        let members = Members::of(&record, &wanted).expect("a record");
        for (i, key) in wanted.iter().enumerate() {
            match whole.get(key) {
                Some(value) => {
                    let text = members.get(i).expect("the member");
                    assert_eq!(text, serde_json::to_string(value).unwrap());
                }
                None => assert!(members.get(i).is_none()),
            }
        }
        assert_eq!(members.get(0), Some(r#""2026-11-29T10:05:55.123456Z""#));
        assert_eq!(members.get(3), Some(r#""Café \"Zoë\"\n""#));
    }

    #[test]
    fn anything_but_a_record_is_refused() {
        let wanted = keys(&["id"]);
        assert!(Members::of(&json!([1, 2]), &wanted).is_none());
        assert!(Members::of(&"text", &wanted).is_none());
        assert!(Members::of(&Some(3), &wanted).is_none());
        // A JSON object is a map: its members are read as a flattened record's.
        let members = Members::of(&json!({"id": 3, "x": [1]}), &wanted).unwrap();
        assert_eq!(members.get(0), Some("3"));
    }
}
