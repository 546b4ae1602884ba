//! The answers every operation can give because of the layers and extractors around it, added to
//! the generated document in one place so that no operation's list of statuses is incomplete:
//! 500 and 503 everywhere; 401 everywhere too, since a bearer that is sent must be valid on every
//! route (`http::credentials::authenticate`); 413, 415 and 422 where a JSON body is read; 422 where
//! path or query parameters are parsed; 408 and 507 on every write (a body that arrives too
//! slowly, a full disk). Error answers an operation lists without a description get the standard
//! one of their status here (OpenAPI requires a description on every response); a success answer
//! must describe itself where it is declared. An optional request body is documented as its
//! object, not as nullable (see `optional_body`). Every list that pages (`rest::paging`: a query
//! parameter `after`) declares its `Link` and `X-Next-Cursor` headers here (see `paged`). An
//! operation that answers malformed parameters with 400 (OGC API Features, the landing page)
//! is not given a 422.

use utoipa::openapi::header::Header;
use utoipa::openapi::path::{Operation, ParameterIn, PathItem};
use utoipa::openapi::schema::{Schema, SchemaType, Type};
use utoipa::openapi::{ContentBuilder, OpenApi, Ref, RefOr, Required, ResponseBuilder};

const INTERNAL: &str = "Internal error; quote the x-request-id when reporting it";
const NOT_READY: &str = "Not ready: database unreachable, request timed out or server overloaded; retry after Retry-After";
const UNAUTHENTICATED: &str = "Bearer missing, invalid, revoked, expired or agent disabled";
const UNAUTHENTICATED_OPTIONAL: &str =
    "A bearer was sent and is invalid, revoked, expired or its agent disabled (none is needed)";
const PAYLOAD_TOO_LARGE: &str = "Body over the size limit";
const UNSUPPORTED_MEDIA_TYPE: &str = "Content-Type is not application/json";
const INVALID: &str = "Invalid input; every problem listed with its loc";

fn error(description: &str, schema: &str) -> RefOr<utoipa::openapi::Response> {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name(schema)))
                .build(),
        )
        .build()
        .into()
}

fn add(operation: &mut Operation, status: &str, description: &str, schema: &str) {
    operation
        .responses
        .responses
        .entry(status.to_string())
        .or_insert_with(|| error(description, schema));
}

fn complete_operation(operation: &mut Operation) {
    optional_body(operation);
    add(operation, "500", INTERNAL, "ErrorBody");
    add(operation, "503", NOT_READY, "ErrorBody");
    let secured = operation.security.as_ref().is_some_and(|s| !s.is_empty());
    let description = if secured {
        UNAUTHENTICATED
    } else {
        UNAUTHENTICATED_OPTIONAL
    };
    add(operation, "401", description, "ErrorBody");
    let json_body = operation.request_body.as_ref().is_some_and(|b| match b {
        RefOr::T(body) => body.content.contains_key("application/json"),
        RefOr::Ref(_) => true,
    });
    if json_body {
        add(operation, "413", PAYLOAD_TOO_LARGE, "ErrorBody");
        add(operation, "415", UNSUPPORTED_MEDIA_TYPE, "ErrorBody");
    }
    let parameters = operation.parameters.as_ref().is_some_and(|p| !p.is_empty());
    let answers_400 = operation.responses.responses.contains_key("400");
    if json_body || (parameters && !answers_400) {
        add(operation, "422", INVALID, "ValidationErrorBody");
    }
    for (status, response) in operation.responses.responses.iter_mut() {
        if let RefOr::T(response) = response
            && response.description.is_empty()
            && let Some(description) = standard_description(status, secured)
        {
            response.description = description.to_string();
        }
    }
}

/// What an error status means on every route (`AppError` maps to these in one place).
fn standard_description(status: &str, secured: bool) -> Option<&'static str> {
    Some(match status {
        "400" => "Bad request",
        "401" if secured => UNAUTHENTICATED,
        "401" => UNAUTHENTICATED_OPTIONAL,
        "403" => "Authenticated, but not allowed (a scope is missing or the agent is paused)",
        "404" => "No such record, document or route",
        "409" => "Conflicts with what is stored; `existing_id` names the record where there is one",
        "413" => PAYLOAD_TOO_LARGE,
        "415" => "The body's media type (or an attachment's) is not supported",
        "422" => INVALID,
        "429" => "Too many requests; retry after Retry-After seconds",
        "500" => INTERNAL,
        "503" => NOT_READY,
        _ => return None,
    })
}

/// utoipa writes an optional body (`request_body(content = Option<T>)`) as `oneOf [T, null]`, not
/// required. A JSON `null` body is refused (every body is an object; no body at all is what is
/// optional), and generators send `null` for it, so the document says `T`, not required.
fn optional_body(operation: &mut Operation) {
    let Some(RefOr::T(body)) = operation.request_body.as_mut() else {
        return;
    };
    if body.required == Some(Required::True) {
        return;
    }
    for content in body.content.values_mut() {
        let RefOr::T(content) = content else {
            continue;
        };
        if let Some(RefOr::T(Schema::OneOf(one_of))) = &content.schema
            && let [a, b] = one_of.items.as_slice()
        {
            let object = match (is_null(a), is_null(b)) {
                (false, true) => a.clone(),
                (true, false) => b.clone(),
                _ => continue,
            };
            content.schema = Some(object);
        }
    }
}

fn is_null(schema: &RefOr<Schema>) -> bool {
    matches!(schema, RefOr::T(Schema::Object(o)) if o.schema_type == SchemaType::Type(Type::Null))
}

/// Each operation of a path, and whether it writes.
fn operations(item: &mut PathItem) -> impl Iterator<Item = (&mut Operation, bool)> {
    [
        (item.get.as_mut(), false),
        (item.put.as_mut(), true),
        (item.post.as_mut(), true),
        (item.delete.as_mut(), true),
        (item.patch.as_mut(), true),
    ]
    .into_iter()
    .filter_map(|(operation, writes)| Some((operation?, writes)))
}

pub fn complete(api: &mut OpenApi) {
    for item in api.paths.paths.values_mut() {
        for (operation, writes) in operations(item) {
            paged(operation);
            complete_operation(operation);
            if writes {
                complete_write(operation);
            }
        }
    }
}

/// What a write can meet besides: a body that arrives too slowly, and a full disk
/// (`storage::space`).
fn complete_write(operation: &mut Operation) {
    add(
        operation,
        "408",
        "The request body did not arrive within the request timeout",
        "ErrorBody",
    );
    add(
        operation,
        "507",
        "The disk is full or below the free space kept in reserve: writes are refused until space is freed",
        "ErrorBody",
    );
}

/// A list that takes `after` (`rest::paging`): the parameter's description, and the headers that
/// carry the next page on its 200 answer.
fn paged(operation: &mut Operation) {
    let after = operation
        .parameters
        .iter_mut()
        .flatten()
        .find_map(|parameter| match parameter {
            RefOr::T(p) if p.name == "after" && p.parameter_in == ParameterIn::Query => Some(p),
            _ => None,
        });
    let Some(after) = after else {
        return;
    };
    after.description = Some(super::paging::AFTER_DESCRIPTION.to_string());
    let Some(RefOr::T(ok)) = operation.responses.responses.get_mut("200") else {
        return;
    };
    let mut link = Header::default();
    link.description = Some(
        "Only when a next page exists: `<url>; rel=\"next\"` (RFC 8288), the absolute URL of \
         the next page, this request's parameters with `after` set"
            .to_string(),
    );
    let mut cursor = Header::default();
    cursor.description = Some(
        "Only when a next page exists: the cursor to send as `after` for the next page".to_string(),
    );
    ok.headers.insert("Link".to_string(), link.into());
    ok.headers
        .insert("X-Next-Cursor".to_string(), cursor.into());
}
