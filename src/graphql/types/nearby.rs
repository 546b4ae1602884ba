//! `entitiesNear`, `listingsNear`, `requestsNear`: canonical records within a radius of a point,
//! nearest first, each edge with its distance. Relay connections keyed on (distance, id).

use crate::domain::Page;
use crate::graphql::machinery::context::ctx_parts;
use crate::records::canonical::Near;
use crate::records::canonical::{CanonicalRequest, Entity, Listing};
use crate::services::canonical::CanonicalRow;
use crate::services::nearby::{self, NearArgs};
use async_graphql::connection::{Connection, ConnectionNameType, Edge, EdgeNameType, EmptyFields};
use async_graphql::{Context, Object, OutputType, Result, SimpleObject};

/// How far an edge's record is from the asked point.
#[derive(SimpleObject)]
pub struct Distance {
    /// Metres on PostGIS's sphere, as search measures.
    pub distance_meters: f64,
}

macro_rules! near_names {
    ($connection:ident, $edge:ident, $connection_name:literal, $edge_name:literal) => {
        pub struct $connection;
        impl ConnectionNameType for $connection {
            fn type_name<T: OutputType>() -> String {
                $connection_name.into()
            }
        }
        pub struct $edge;
        impl EdgeNameType for $edge {
            fn type_name<T: OutputType>() -> String {
                $edge_name.into()
            }
        }
    };
}

near_names!(
    EntityNear,
    EntityNearEdge,
    "EntityNearConnection",
    "EntityNearEdge"
);
near_names!(
    ListingNear,
    ListingNearEdge,
    "ListingNearConnection",
    "ListingNearEdge"
);
near_names!(
    RequestNear,
    RequestNearEdge,
    "CanonicalRequestNearConnection",
    "CanonicalRequestNearEdge"
);

type NearConnection<T, C, E> = Connection<String, T, EmptyFields, Distance, C, E>;

/// Records of kind `K` near a point, nearest first, as a connection with each edge's distance.
async fn near<K, C, E>(ctx: &Context<'_>, args: NearArgs) -> Result<NearConnection<K, C, E>>
where
    K: CanonicalRow + OutputType,
    C: ConnectionNameType,
    E: EdgeNameType,
{
    let (state, _) = ctx_parts(ctx);
    let page: Page<Near<K>> = nearby::page::<K>(state, &args).await?;
    let mut connection = Connection::new(args.after.is_some(), page.has_next_page);
    connection.edges.extend(page.items.into_iter().map(|near| {
        Edge::with_additional_fields(
            nearby::cursor(near.distance_m, near.record.feature_id()),
            near.record,
            Distance {
                distance_meters: near.distance_m,
            },
        )
    }));
    Ok(connection)
}

#[derive(Default)]
pub struct NearbyQuery;

/// The three `…Near` fields differ only in name, record and connection names. The whole
/// `#[Object]` block lives in the macro: async-graphql resolves `first` and `child_complexity`
/// in the complexity expression with the hygiene of the block that holds them.
macro_rules! near_fields {
    ($($(#[$doc:meta])* $field:ident: $record:ty, $connection:ty, $edge:ty;)+) => {
        #[Object]
        impl NearbyQuery {
            $(
                $(#[$doc])*
                #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
                async fn $field(
                    &self,
                    ctx: &Context<'_>,
                    latitude: f64,
                    longitude: f64,
                    radius_meters: i64,
                    first: Option<i32>,
                    after: Option<String>,
                ) -> Result<NearConnection<$record, $connection, $edge>> {
                    let args = NearArgs { latitude, longitude, radius_meters, first, after };
                    near(ctx, args).await
                }
            )+
        }
    };
}

near_fields! {
    /// Canonical entities within `radiusMeters` (1 to 100,000) of a point, nearest first
    /// (archived and withdrawn ones left out), `first` 1 to 500 (default 100).
    entities_near: Entity, EntityNear, EntityNearEdge;
    /// Canonical listings near a point, nearest first (as `entitiesNear`).
    listings_near: Listing, ListingNear, ListingNearEdge;
    /// Canonical requests near a point, nearest first (as `entitiesNear`).
    requests_near: CanonicalRequest, RequestNear, RequestNearEdge;
}
