//! Limits on anonymous writes and registrations, per client address (IPv6 per /64, what one
//! subscriber usually holds), shared by every server process through the database.

use crate::ctx::Ctx;
use crate::error::{AppError, AppResult};
use crate::state::AppState;

const WINDOW_SECS: i64 = 60;

/// Authenticated callers are accountable through their key; anonymous ones are limited per address.
#[tracing::instrument(
    name = "rate_limit::anonymous_write",
    level = "debug",
    skip_all,
    fields(%action)
)]
pub async fn anonymous_write(state: &AppState, ctx: &Ctx, action: &str) -> AppResult<()> {
    let max = state.config.anon_writes_per_minute;
    per_address(state, ctx, &format!("anon:{action}"), WINDOW_SECS, max).await
}

const REGISTRATION_WINDOW_SECS: i64 = 3600;

/// New agents and principals per client address and hour (anonymous callers; a caller with a key
/// is accountable through it).
#[tracing::instrument(name = "rate_limit::registration", level = "debug", skip_all)]
pub async fn registration(state: &AppState, ctx: &Ctx) -> AppResult<()> {
    let max = state.config.registrations_per_hour;
    per_address(state, ctx, "register", REGISTRATION_WINDOW_SECS, max).await
}

/// At most `max` anonymous hits of `action` per client address and window.
async fn per_address(
    state: &AppState,
    ctx: &Ctx,
    action: &str,
    window_secs: i64,
    max: i32,
) -> AppResult<()> {
    if ctx.actor.is_some() {
        return Ok(());
    }
    let bucket = format!("{action}:{}", client_key(ctx));
    let (hits, seconds_left) =
        crate::db::rate_limits::hit(&state.pool, &bucket, window_secs).await?;
    if hits > max {
        return Err(AppError::RateLimited {
            retry_after_secs: seconds_left as u64,
        });
    }
    Ok(())
}

/// The address a limit counts: an IPv4 address as it is, an IPv6 address by its /64.
pub fn client_key(ctx: &Ctx) -> String {
    let Some(client) = ctx.client.as_deref() else {
        return "unknown".into();
    };
    match client.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V6(v6)) if v6.to_ipv4_mapped().is_none() => {
            let s = v6.segments();
            format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
        }
        Ok(std::net::IpAddr::V6(v6)) => v6
            .to_ipv4_mapped()
            .map(|v4| v4.to_string())
            .unwrap_or_default(),
        Ok(std::net::IpAddr::V4(v4)) => v4.to_string(),
        Err(_) => client.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::client_key;
    use crate::ctx::Ctx;

    fn key(client: &str) -> String {
        client_key(&Ctx {
            client: Some(client.into()),
            ..Ctx::default()
        })
    }

    #[test]
    fn ipv6_addresses_of_one_slash_64_share_a_limit() {
        assert_eq!(
            key("2001:db8:1:2:aaaa::1"),
            key("2001:db8:1:2:ffff:ffff:ffff:ffff")
        );
        assert_eq!(key("2001:db8:1:2::5"), "2001:db8:1:2::/64");
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("203.0.113.7"), "203.0.113.7");
        assert_eq!(key("::ffff:203.0.113.7"), "203.0.113.7");
        assert_eq!(client_key(&Ctx::default()), "unknown");
    }
}
