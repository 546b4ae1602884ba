//! The command line: serve (default), migrate, export-schema, export-openapi, admin, topology.

use clap::{Parser, Subcommand};
use spacetime_records::config::Config;
use spacetime_records::domain::{AgentStatus, CanonicalTable};
use spacetime_records::records::canonical::{CanonicalRequest, Entity, Listing};
use spacetime_records::{app, graphql, services};
use std::path::PathBuf;
use std::time::Duration;
use uuid::Uuid;

#[derive(Parser)]
#[command(
    name = "spacetime-records",
    version,
    about = "Space-Time Records Service"
)]
struct Cli {
    #[command(flatten)]
    config: Config,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP server (the default).
    Serve,
    /// Apply pending database migrations and exit.
    Migrate,
    /// Write the GraphQL SDL (default: schema.graphql).
    ExportSchema {
        #[arg(long, default_value = "schema.graphql")]
        out: PathBuf,
    },
    /// Print the OpenAPI document.
    ExportOpenapi,
    /// Operator tasks.
    #[command(subcommand)]
    Admin(Admin),
    /// Start a local scale-out topology: a primary and a streaming replica (private clusters
    /// under --dir) and several server processes sharing them, until Ctrl-C.
    Topology {
        #[arg(long, default_value_t = 2)]
        processes: usize,
        #[arg(long, default_value_t = 8081)]
        first_port: u16,
        /// Default: <STRS_DATA_DIR>/topology.
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum Admin {
    /// Create an operator agent with an `admin`-scoped API key; prints the key once.
    CreateKey {
        #[arg(long, default_value = "Operator")]
        display_name: String,
    },
    /// Set an agent's status (active, paused, disabled). Disabled agents' keys stop working at once.
    SetAgentStatus {
        #[arg(long)]
        agent_id: Uuid,
        #[arg(long)]
        status: String,
    },
    /// Resolve an entry waiting for review, as the operator whose admin key is in
    /// STRS_ADMIN_API_KEY (the same service as POST /api/v1/review-queue/{id}/resolution).
    ResolveReview {
        #[arg(long)]
        entry_id: Uuid,
        /// is_record, is_new or reject.
        #[arg(long)]
        resolution: String,
        /// With is_record: the record the entry is about.
        #[arg(long)]
        canonical_id: Option<Uuid>,
        #[arg(long, env = "STRS_ADMIN_API_KEY", hide_env_values = true)]
        api_key: String,
    },
    /// Accept a field proposal (the record takes the contested value), as the operator whose
    /// admin key is in STRS_ADMIN_API_KEY (as POST
    /// /api/v1/review-queue/field-proposals/{id}/accept).
    AcceptFieldProposal {
        #[arg(long)]
        proposal_id: Uuid,
        #[arg(long, env = "STRS_ADMIN_API_KEY", hide_env_values = true)]
        api_key: String,
    },
    /// Dismiss a field proposal (the record keeps its value), as POST
    /// /api/v1/review-queue/field-proposals/{id}/dismiss.
    DismissFieldProposal {
        #[arg(long)]
        proposal_id: Uuid,
        #[arg(long, env = "STRS_ADMIN_API_KEY", hide_env_values = true)]
        api_key: String,
    },
    /// Merge a duplicate record into a survivor of the same kind (as POST
    /// /api/v1/{table}/{survivor}/merge). `merge-entities` is the same command.
    #[command(visible_alias = "merge-entities")]
    Merge {
        /// entities, listings or requests.
        #[arg(long, default_value = "entities")]
        table: String,
        #[arg(long)]
        survivor_id: Uuid,
        #[arg(long)]
        merged_id: Uuid,
        #[arg(long, env = "STRS_ADMIN_API_KEY", hide_env_values = true)]
        api_key: String,
    },
    /// Undo the merge that made a record a redirect (as POST /api/v1/{table}/{id}/unmerge).
    UndoMerge {
        /// entities, listings or requests.
        #[arg(long, default_value = "entities")]
        table: String,
        /// The redirect (`--entity-id` is the same option).
        #[arg(long = "record-id", alias = "entity-id")]
        record_id: Uuid,
        #[arg(long, env = "STRS_ADMIN_API_KEY", hide_env_values = true)]
        api_key: String,
    },
    /// Recompute the identity keys (entities: name, website and phone keys; listings and
    /// requests: title keys) of records written under older normalisation rules, in batches of
    /// `--batch-size` records, each batch its own short transaction. Rows another transaction
    /// holds are left for a later run (reported as skipped); nothing is merged.
    Rekey {
        /// entities, listings or requests.
        #[arg(long, default_value = "entities")]
        table: String,
        /// 1 to 5000 records a batch.
        #[arg(long, default_value_t = 500)]
        batch_size: i64,
    },
    /// Rewrite the canonical tables in place order (geohash), so that records near each other
    /// share pages: the transformer's candidates and a search's radius then read a few runs of
    /// the table instead of rows scattered over it (docs/operations.md, "Place order"). Each
    /// table is locked against reads and writes while it is rewritten, and needs free disk for
    /// a copy of itself and its indexes: run it with the servers stopped or in a quiet hour.
    OrderByPlace {
        /// entities, listings or requests; all three when left out.
        #[arg(long)]
        table: Option<String>,
        /// Give up on a table (and stop) when other transactions hold it for longer than this;
        /// 0 waits as long as it takes.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(0..=86_400))]
        lock_wait_secs: u64,
    },
}

/// The operator an admin key names, as the service's callers see it.
async fn operator(
    state: &spacetime_records::state::AppState,
    api_key: &str,
) -> anyhow::Result<spacetime_records::ctx::Ctx> {
    let actor = services::auth::authenticate(state, api_key)
        .await
        .map_err(into_anyhow)?;
    Ok(spacetime_records::ctx::Ctx {
        actor: Some(actor),
        ..Default::default()
    })
}

#[cfg(not(feature = "dhat-heap"))]
#[global_allocator]
static GLOBAL: spacetime_records::alloc::MiMalloc = spacetime_records::alloc::MiMalloc;

#[cfg(feature = "dhat-heap")]
#[global_allocator]
static GLOBAL: dhat::Alloc = dhat::Alloc;

fn main() -> anyhow::Result<()> {
    // Before `.env` is read: mimalloc took its options from the real environment only.
    spacetime_records::alloc::tune();
    // `.env` sets environment variables: before the runtime starts any thread.
    spacetime_records::config::load_dotenv()?;
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run())
}

#[expect(clippy::print_stdout, reason = "the CLI answers on standard output")]
async fn run() -> anyhow::Result<()> {
    #[cfg(feature = "dhat-heap")]
    let _profiler = dhat::Profiler::new_heap();
    let cli = Cli::parse();
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| "info,sqlx=warn".into());
    if cli.config.log_json {
        tracing_subscriber::fmt()
            .json()
            .with_current_span(true)
            .with_env_filter(filter)
            .init();
    } else {
        tracing_subscriber::fmt().with_env_filter(filter).init();
    }
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => app::serve(cli.config).await,
        Command::ExportSchema { out } => {
            std::fs::write(&out, graphql::sdl())?;
            println!("wrote {}", out.display());
            Ok(())
        }
        Command::ExportOpenapi => {
            println!("{}", app::openapi().to_pretty_json()?);
            Ok(())
        }
        Command::Migrate => {
            let (url, cluster) = app::database_url(&cli.config).await?;
            let migrated = app::build_state(cli.config, &url).await;
            // The pools close before the cluster this command started stops.
            if let Ok(state) = &migrated {
                println!("migrations applied");
                state.pool.close().await;
            }
            stop_if_started_here(cluster).await?;
            migrated.map(|_| ())
        }
        Command::Topology {
            processes,
            first_port,
            dir,
        } => {
            let dir = dir.unwrap_or_else(|| cli.config.data_dir.join("topology"));
            spacetime_records::topology::run_local(&dir, processes, first_port).await
        }
        Command::Admin(admin) => {
            let (url, cluster) = app::database_url(&cli.config).await?;
            let done = match app::build_state(cli.config, &url).await {
                Ok(state) => {
                    let done = run_admin(&state, admin).await;
                    state.pool.close().await;
                    done
                }
                Err(error) => Err(error),
            };
            stop_if_started_here(cluster).await?;
            done
        }
    }
}

/// A command stops the embedded cluster it started (and leaves one it found running alone).
async fn stop_if_started_here(
    cluster: Option<spacetime_records::db::cluster::EmbeddedCluster>,
) -> anyhow::Result<()> {
    match cluster.filter(spacetime_records::db::cluster::EmbeddedCluster::started_here) {
        Some(cluster) => tokio::task::spawn_blocking(move || cluster.stop()).await?,
        None => Ok(()),
    }
}

#[expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "the CLI answers on standard output, progress goes to standard error"
)]
async fn run_admin(state: &spacetime_records::state::AppState, admin: Admin) -> anyhow::Result<()> {
    match admin {
        Admin::CreateKey { display_name } => {
            let created = services::api_keys::issue_operator_key(state, &display_name)
                .await
                .map_err(into_anyhow)?;
            println!("agent_id: {}", created.agent.id);
            println!("api_key (shown once, store it now): {}", created.api_key);
        }
        Admin::ResolveReview {
            entry_id,
            resolution,
            canonical_id,
            api_key,
        } => {
            let ctx = operator(state, &api_key).await?;
            let input = spacetime_records::records::review::ReviewResolutionInput {
                resolution: resolution.parse().map_err(anyhow::Error::msg)?,
                canonical_id,
            };
            let result = services::review::resolve(state, &ctx, entry_id, &input, &["args"])
                .await
                .map_err(into_anyhow)?;
            println!("{}", serde_json::to_string_pretty(&result)?);
        }
        Admin::AcceptFieldProposal {
            proposal_id,
            api_key,
        } => {
            let ctx = operator(state, &api_key).await?;
            let accepted = services::proposals::accept(state, &ctx, proposal_id)
                .await
                .map_err(into_anyhow)?;
            println!("{}", serde_json::to_string_pretty(&accepted)?);
        }
        Admin::DismissFieldProposal {
            proposal_id,
            api_key,
        } => {
            let ctx = operator(state, &api_key).await?;
            let dismissed = services::proposals::dismiss(state, &ctx, proposal_id)
                .await
                .map_err(into_anyhow)?;
            println!("{}", serde_json::to_string_pretty(&dismissed)?);
        }
        Admin::Merge {
            table,
            survivor_id,
            merged_id,
            api_key,
        } => {
            let ctx = operator(state, &api_key).await?;
            let at = &["args", "merged_id"];
            let survivor = match table_arg(&table)? {
                CanonicalTable::Entities => json(
                    services::merge::merge::<Entity>(state, &ctx, survivor_id, merged_id, at).await,
                ),
                CanonicalTable::Listings => json(
                    services::merge::merge::<Listing>(state, &ctx, survivor_id, merged_id, at)
                        .await,
                ),
                CanonicalTable::Requests => json(
                    services::merge::merge::<CanonicalRequest>(
                        state,
                        &ctx,
                        survivor_id,
                        merged_id,
                        at,
                    )
                    .await,
                ),
            }?;
            println!("{}", serde_json::to_string_pretty(&survivor)?);
        }
        Admin::UndoMerge {
            table,
            record_id,
            api_key,
        } => {
            let ctx = operator(state, &api_key).await?;
            let restored = match table_arg(&table)? {
                CanonicalTable::Entities => {
                    json(services::merge::undo::<Entity>(state, &ctx, record_id).await)
                }
                CanonicalTable::Listings => {
                    json(services::merge::undo::<Listing>(state, &ctx, record_id).await)
                }
                CanonicalTable::Requests => {
                    json(services::merge::undo::<CanonicalRequest>(state, &ctx, record_id).await)
                }
            }?;
            println!("{}", serde_json::to_string_pretty(&restored)?);
        }
        Admin::Rekey { table, batch_size } => {
            let table = table_arg(&table)?;
            let mut after = None;
            let mut total = services::rekey::RekeyBatch::default();
            loop {
                let batch = services::rekey::rekey_batch(state, table, after, batch_size)
                    .await
                    .map_err(into_anyhow)?;
                total.scanned += batch.scanned;
                total.rekeyed += batch.rekeyed;
                total.skipped += batch.skipped;
                eprintln!(
                    "{table}: {} scanned, {} re-keyed, {} skipped so far",
                    total.scanned, total.rekeyed, total.skipped
                );
                match batch.next_after {
                    Some(last) => after = Some(last),
                    None => break,
                }
            }
            println!("{}", serde_json::to_string_pretty(&total)?);
        }
        Admin::OrderByPlace {
            table,
            lock_wait_secs,
        } => {
            let tables = match table {
                Some(table) => vec![table_arg(&table)?],
                None => CanonicalTable::ALL.to_vec(),
            };
            let lock_wait = (lock_wait_secs > 0).then(|| Duration::from_secs(lock_wait_secs));
            for table in tables {
                let done = services::place_order::order_by_place(state, table, lock_wait)
                    .await
                    .map_err(into_anyhow)?;
                println!("{}", serde_json::to_string(&done)?);
            }
        }
        Admin::SetAgentStatus { agent_id, status } => {
            let status: AgentStatus = status.parse().map_err(anyhow::Error::msg)?;
            let agent = services::agents::set_status(state, agent_id, status)
                .await
                .map_err(into_anyhow)?;
            println!("agent {} is now {}", agent.id, agent.status);
        }
    }
    Ok(())
}

/// `entities`, `listings` or `requests` (the `canonical.` prefix may be given).
fn table_arg(table: &str) -> anyhow::Result<CanonicalTable> {
    let full = if table.contains('.') {
        table.to_owned()
    } else {
        format!("canonical.{table}")
    };
    full.parse()
        .map_err(|_| anyhow::anyhow!("--table must be entities, listings or requests"))
}

fn json<T: serde::Serialize>(
    result: Result<T, spacetime_records::error::AppError>,
) -> anyhow::Result<serde_json::Value> {
    Ok(serde_json::to_value(result.map_err(into_anyhow)?)?)
}

fn into_anyhow(err: spacetime_records::error::AppError) -> anyhow::Error {
    anyhow::anyhow!("{} ({})", err.public_message(), err.code())
}
