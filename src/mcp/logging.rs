//! Log notifications (`notifications/message`) to the client, at the level it asks for.
//!
//! A stateless server keeps no session, so `logging/setLevel` has nowhere to keep its level
//! beyond its own request: it is accepted (answered `{}`) and changes nothing. The level a client
//! wants is read from each request's `_meta["io.modelcontextprotocol/logLevel"]` (SEP-2575, what
//! rmcp reads on every request); without it no log notification is sent, so answers stay plain
//! JSON. With it, a tool call's answer becomes a short event stream: the notifications, then the
//! result. MCP logging is deprecated by SEP-2577 (and in rmcp); these are its last users here.
#![expect(deprecated, reason = "MCP logging (SEP-2577): its last user")]

use rmcp::RoleServer;
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::RequestContext;
use serde_json::Value;

/// Severity order of RFC 5424, as the MCP spec lists the levels.
fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// The level the request asks for, if any.
fn wanted(context: &RequestContext<RoleServer>) -> Option<LoggingLevel> {
    context.meta.log_level()
}

/// Sends `data` at `level` when the request asked for that level or a lower one.
pub async fn log(context: &RequestContext<RoleServer>, level: LoggingLevel, data: Value) {
    let Some(minimum) = wanted(context) else {
        return;
    };
    if rank(level) < rank(minimum) {
        return;
    }
    let message =
        LoggingMessageNotificationParam::new(level, data).with_logger("spacetime-records");
    // The client may have gone; a lost log line is no reason to fail the call.
    let _ = context.peer.notify_logging_message(message).await;
}

pub async fn debug(context: &RequestContext<RoleServer>, data: Value) {
    log(context, LoggingLevel::Debug, data).await;
}

pub async fn info(context: &RequestContext<RoleServer>, data: Value) {
    log(context, LoggingLevel::Info, data).await;
}

pub async fn warning(context: &RequestContext<RoleServer>, data: Value) {
    log(context, LoggingLevel::Warning, data).await;
}

pub async fn error(context: &RequestContext<RoleServer>, data: Value) {
    log(context, LoggingLevel::Error, data).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_rank_from_debug_to_emergency() {
        assert!(rank(LoggingLevel::Debug) < rank(LoggingLevel::Info));
        assert!(rank(LoggingLevel::Warning) < rank(LoggingLevel::Error));
        assert_eq!(rank(LoggingLevel::Emergency), 7);
    }
}
