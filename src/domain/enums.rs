//! The enumerations of the specification. Each is stored as text (with a CHECK constraint in the
//! database) and serialised as the exact spec string. One definition serves sqlx, serde, OpenAPI
//! and GraphQL (where its values are the SCREAMING_CASE names of the variants).

macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, async_graphql::Enum)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// The accepted values, for error messages.
            pub fn expected() -> String {
                [$($text),+].join(", ")
            }
        }

        /// The OpenAPI schema lists the values as sent (the spec strings), not the variant names.
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::schema::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .enum_values(Some([$($text),+]))
                    .into()
            }
        }

        impl utoipa::ToSchema for $name {}

        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s {
                    $($text => Ok($name::$variant),)+
                    other => Err(format!("'{}' is not one of: {}", other, $name::expected())),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl sqlx::Type<sqlx::Postgres> for $name {
            fn type_info() -> sqlx::postgres::PgTypeInfo {
                <String as sqlx::Type<sqlx::Postgres>>::type_info()
            }
            fn compatible(ty: &sqlx::postgres::PgTypeInfo) -> bool {
                <String as sqlx::Type<sqlx::Postgres>>::compatible(ty)
            }
        }

        impl<'q> sqlx::Encode<'q, sqlx::Postgres> for $name {
            fn encode_by_ref(
                &self,
                buf: &mut sqlx::postgres::PgArgumentBuffer,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                <&str as sqlx::Encode<sqlx::Postgres>>::encode(self.as_str(), buf)
            }
        }

        impl<'r> sqlx::Decode<'r, sqlx::Postgres> for $name {
            fn decode(value: sqlx::postgres::PgValueRef<'r>) -> Result<Self, sqlx::error::BoxDynError> {
                let text = <&str as sqlx::Decode<sqlx::Postgres>>::decode(value)?;
                text.parse::<$name>().map_err(Into::into)
            }
        }
    };
}

string_enum!(PrincipalType {
    Person => "person", Company => "company", PublicBody => "public_body",
    Internal => "internal", Customer => "customer", Supplier => "supplier",
});

string_enum!(AgentType {
    Human => "human", Scraper => "scraper", ApiAgent => "api_agent",
    SupplierAgent => "supplier_agent", CustomerAgent => "customer_agent", Sensor => "sensor",
});

string_enum!(AgentStatus { Active => "active", Paused => "paused", Disabled => "disabled" });

string_enum!(ApiKeyStatus { Active => "active", Revoked => "revoked", Expired => "expired" });

string_enum!(EntryType { Entity => "entity", Request => "request", Listing => "listing", Observation => "observation" });

string_enum!(EntryIntent {
    Observe => "observe", Submit => "submit", AddContext => "add_context", Correct => "correct",
    Claim => "claim", Verify => "verify", Withdraw => "withdraw",
});

string_enum!(EntryStatus {
    Pending => "pending", Active => "active", Processed => "processed", Superseded => "superseded",
    Rejected => "rejected", ReviewRequired => "review_required", Archived => "archived",
});

string_enum!(
    /// canonical.entities, canonical.listings, canonical.requests.
    CanonicalTable {
        Entities => "canonical.entities", Listings => "canonical.listings", Requests => "canonical.requests",
    }
);

impl CanonicalTable {
    /// One record of the table, as messages name it: entity, listing, request.
    pub fn record_name(self) -> &'static str {
        match self {
            CanonicalTable::Entities => "entity",
            CanonicalTable::Listings => "listing",
            CanonicalTable::Requests => "request",
        }
    }
}

string_enum!(LinkType {
    Created => "created", Updated => "updated", Matched => "matched", Merged => "merged",
    SupportingEvidence => "supporting_evidence", DuplicateOf => "duplicate_of",
});

string_enum!(NoteVisibility { Internal => "internal", Public => "public", PrincipalOnly => "principal_only" });

string_enum!(
    /// Who may read a transaction term: anyone, or its creator and the agents it is offered to.
    TermVisibility { Public => "public", Private => "private" }
);

string_enum!(SignalType {
    Confirm => "confirm", Reject => "reject", Duplicate => "duplicate", Stale => "stale", Flag => "flag",
    BoostConfidence => "boost_confidence", ReduceConfidence => "reduce_confidence",
});

string_enum!(
    /// How much a finding of a draft evaluation weighs: `blocking` means "do not post it as is".
    FindingSeverity { Blocking => "blocking", Warning => "warning" }
);

string_enum!(
    /// The overall judgement of a draft entry against its context rubric.
    UsefulnessVerdict { Useful => "useful", NeedsWork => "needs_work", NotUseful => "not_useful" }
);

string_enum!(
    /// An agent's membership of a principal: granted by the principal, or pending its grant.
    MembershipStatus { Granted => "granted", Pending => "pending" }
);

/// Scopes an API key can carry. `admin` guards the internal transformer and ranker operations.
pub mod scopes {
    pub const ENTRIES_WRITE: &str = "space_time_entries:write";
    pub const ADMIN: &str = "admin";
    pub const ALL: &[&str] = &[ENTRIES_WRITE, ADMIN];
    pub fn default_scopes() -> Vec<String> {
        vec![ENTRIES_WRITE.to_string()]
    }
}

string_enum!(
    /// An operator's answer to an entry in review: it is the named record, it is a new record,
    /// or it is rejected.
    ReviewResolution { IsRecord => "is_record", IsNew => "is_new", Reject => "reject" }
);
