//! The request's batch loaders: every `load_one` of one kind made while a level of the query is
//! being resolved goes out as one call of the loader (one statement), as with async-graphql's
//! DataLoader, whose `Loader` trait the loaders keep implementing.
//!
//! async-graphql's DataLoader spends on every `load_one` a type-map lookup, a `HashSet` and a
//! `HashMap` of its own, a oneshot channel and, per batch, a spawned task waiting on a 1 ms
//! timer; with the ~750 `load_one`s of a 50-agent nested query that was a visible share of the
//! request (docs/bench-log/api.md). Here a batch is one shared future: the first `load_one` of a
//! level creates it, the others join it, and it waits for turns of the executor until a turn adds
//! no key: the sibling fields of that level, polled meanwhile, add theirs. No timer, no spawned
//! task. It runs in the
//! request's own task, so the request's read routing applies to it without a spawner.

use async_graphql::dataloader::Loader;
use futures::FutureExt;
use futures::future::{BoxFuture, Shared};
use std::any::Any;
use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard};

/// The most keys one call of a loader receives; a larger batch is loaded in several calls.
const MAX_BATCH: usize = 1_000;
/// How many turns of the executor a batch waits at most for keys to stop arriving.
const MAX_TURNS: usize = 64;

type Batch<K, V, E> = Shared<BoxFuture<'static, Result<Arc<HashMap<K, V>>, E>>>;

/// What a loader has gathered for the batch to come, and (for loaders that remember) what the
/// request has loaded or was fed so far.
struct Slot<K, V, E> {
    remembered: HashMap<K, V>,
    gathering: Vec<K>,
    next: Option<Batch<K, V, E>>,
}

struct Inner<T> {
    loader: T,
    remember: bool,
    /// The `Slot` of the loader's key type (a loader has one key type; typed at first use).
    slot: Mutex<Option<Box<dyn Any + Send>>>,
}

/// A loader for one request.
pub struct DataLoader<T> {
    inner: Arc<Inner<T>>,
}

/// A loader whose results (and what list resolvers feed it) are kept for the rest of the
/// request, so that an id met again at a deeper level costs nothing.
pub type Cached<T> = DataLoader<T>;

impl<T: Send + Sync + 'static> DataLoader<T> {
    /// A loader that forgets each batch once it is answered (edges that may differ between
    /// levels are read again).
    pub fn forgetting(loader: T) -> Self {
        Self::new(loader, false)
    }

    /// A loader that remembers what it loaded and was fed, for the request.
    pub fn remembering(loader: T) -> Self {
        Self::new(loader, true)
    }

    fn new(loader: T, remember: bool) -> Self {
        DataLoader {
            inner: Arc::new(Inner {
                loader,
                remember,
                slot: Mutex::new(None),
            }),
        }
    }

    pub async fn load_one<K>(&self, key: K) -> Result<Option<T::Value>, T::Error>
    where
        K: Send + Sync + Hash + Eq + Clone + 'static,
        T: Loader<K>,
        T::Error: Sync,
    {
        let batch = {
            let mut guard = lock(&self.inner.slot);
            let slot = slot_of::<K, T>(&mut guard);
            if let Some(value) = slot.remembered.get(&key) {
                return Ok(Some(value.clone()));
            }
            slot.gathering.push(key.clone());
            match &slot.next {
                Some(batch) => batch.clone(),
                None => {
                    let batch = gather::<K, T>(Arc::clone(&self.inner));
                    slot.next = Some(batch.clone());
                    batch
                }
            }
        };
        Ok(batch.await?.get(&key).cloned())
    }

    /// Values a list resolver already fetched: kept for later `load_one`s (a loader that
    /// forgets ignores them).
    pub async fn feed_many<K, I>(&self, values: I)
    where
        K: Send + Sync + Hash + Eq + Clone + 'static,
        T: Loader<K>,
        T::Error: Sync,
        I: IntoIterator<Item = (K, T::Value)>,
    {
        if !self.inner.remember {
            return;
        }
        let mut guard = lock(&self.inner.slot);
        slot_of::<K, T>(&mut guard).remembered.extend(values);
    }

    /// Forgets what was loaded and fed (a subscription's next event reads afresh).
    pub fn clear<K>(&self)
    where
        K: Send + Sync + Hash + Eq + Clone + 'static,
        T: Loader<K>,
        T::Error: Sync,
    {
        let mut guard = lock(&self.inner.slot);
        slot_of::<K, T>(&mut guard).remembered.clear();
    }
}

fn lock<S>(mutex: &Mutex<S>) -> MutexGuard<'_, S> {
    // Nothing a panicking holder left half-done can break a later reader: keys and values only.
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn slot_of<K, T>(guard: &mut Option<Box<dyn Any + Send>>) -> &mut Slot<K, T::Value, T::Error>
where
    K: Send + Sync + Hash + Eq + Clone + 'static,
    T: Loader<K>,
    T::Error: Sync,
{
    let any = guard.get_or_insert_with(|| {
        Box::new(Slot::<K, T::Value, T::Error> {
            remembered: HashMap::new(),
            gathering: Vec::new(),
            next: None,
        })
    });
    any.downcast_mut::<Slot<K, T::Value, T::Error>>()
        .expect("a loader has one key type")
}

/// The batch the keys gathered from now on go into.
fn gather<K, T>(inner: Arc<Inner<T>>) -> Batch<K, T::Value, T::Error>
where
    K: Send + Sync + Hash + Eq + Clone + 'static,
    T: Loader<K> + Send + Sync + 'static,
    T::Error: Sync,
{
    async move {
        // Turns of the executor until one adds no key: the rest of this level's fields are
        // polled meanwhile (a list of more than 32 is polled over several turns: futures'
        // `FuturesUnordered` yields after every 32 polls) and add theirs.
        let mut gathered = 0;
        for _ in 0..MAX_TURNS {
            tokio::task::yield_now().await;
            let now = slot_of::<K, T>(&mut lock(&inner.slot)).gathering.len();
            if now == gathered {
                break;
            }
            gathered = now;
        }
        let keys: Vec<K> = {
            let mut guard = lock(&inner.slot);
            let slot = slot_of::<K, T>(&mut guard);
            slot.next = None;
            let mut seen = HashSet::with_capacity(slot.gathering.len());
            std::mem::take(&mut slot.gathering)
                .into_iter()
                .filter(|key| seen.insert(key.clone()))
                .collect()
        };
        let mut found = HashMap::with_capacity(keys.len());
        for chunk in keys.chunks(MAX_BATCH) {
            found.extend(inner.loader.load(chunk).await?);
        }
        if inner.remember {
            let mut guard = lock(&inner.slot);
            slot_of::<K, T>(&mut guard)
                .remembered
                .extend(found.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        Ok(Arc::new(found))
    }
    .boxed()
    .shared()
}
