//! Attachment media types are decided by the bytes, not by what the client declares.

pub const ACCEPTED: &[&str] = &[
    "application/pdf",
    "image/png",
    "image/jpeg",
    "image/webp",
    "image/gif",
    "text/plain",
];

/// The media type of `bytes`, or why it is refused. A declared type that contradicts the bytes is
/// refused too (a PDF sent as image/png is a mistake or a disguise).
pub fn sniff(bytes: &[u8], declared: Option<&str>) -> Result<&'static str, String> {
    let detected = match infer::get(bytes).map(|kind| kind.mime_type()) {
        Some(mime) => ACCEPTED.iter().copied().find(|accepted| *accepted == mime),
        None if is_plain_text(bytes) => Some("text/plain"),
        None => None,
    };
    let Some(detected) = detected else {
        return Err(format!(
            "unsupported attachment content; accepted: {}",
            ACCEPTED.join(", ")
        ));
    };
    let declared = declared.map(|d| {
        d.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    });
    match declared.as_deref() {
        None | Some("") | Some("application/octet-stream") => Ok(detected),
        Some(d) if d == detected || (detected == "image/jpeg" && d == "image/jpg") => Ok(detected),
        Some(d) => Err(format!(
            "declared type {d} does not match the content ({detected})"
        )),
    }
}

fn is_plain_text(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes).is_ok_and(|text| !text.contains('\0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_types_come_from_the_bytes() {
        assert_eq!(sniff(b"%PDF-1.7\n...", None), Ok("application/pdf"));
        assert_eq!(
            sniff(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", Some("image/png")),
            Ok("image/png")
        );
        assert_eq!(
            sniff(b"plain words", Some("text/plain; charset=utf-8")),
            Ok("text/plain")
        );
        assert!(sniff(b"%PDF-1.7\n...", Some("image/png")).is_err());
        assert!(sniff(b"MZ\x90\0\x03\0\0\0\x04\0\0\0\xff\xff", None).is_err());
        assert!(sniff(&[0u8, 159, 146, 150], None).is_err());
    }
}
