//! Recursive directory walks, written the ways seed 000 tried (and its
//! author's later rayon rewrite).
//!
//! Every variant returns the sorted listing: the root, every directory, and
//! every symlink to a directory as `path@ -> target` (reported, not followed,
//! as the seed's `read_link` + `is_dir` check does). The seed prints; here
//! the printer is replaced by pushing to the returned list.
//!
//! The tokio variants keep the seed's shape: a work list of directories that
//! is drained level by level, and per entry two blocks, "is it a directory"
//! and "is it a symlink to one". They differ only in how those are spawned.
//! The seed's work list is a global `OnceCell<Mutex<Vec<String>>>`; here it is
//! one `Arc<Mutex<..>>` per walk, so walks can run side by side (tests).

use std::fs::Metadata;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use tokio::sync::Mutex as AsyncMutex;
use tokio::task::{JoinError, JoinSet};

use crate::tree::symlink_entry;

/// The listing being collected (the seed's stdout).
#[derive(Clone, Default)]
struct Found(Arc<std::sync::Mutex<Vec<String>>>);

impl Found {
    fn new(root: &Path) -> Found {
        Found(Arc::new(std::sync::Mutex::new(vec![
            root.display().to_string(),
        ])))
    }
    fn push(&self, entry: String) {
        self.0.lock().expect("listing lock poisoned").push(entry);
    }
    fn into_sorted(self) -> Vec<String> {
        let mut list = std::mem::take(&mut *self.0.lock().expect("listing lock poisoned"));
        list.sort();
        list
    }
}

/// The shared list of directories still to read (the seed's global).
type WorkList = Arc<AsyncMutex<Vec<PathBuf>>>;

fn joined<T>(result: Result<T, JoinError>) -> io::Result<T> {
    result.map_err(io::Error::other)
}

// ---------------------------------------------------------------- std::fs

/// Synchronous recursive walk with `std::fs` (the seed's no-async baseline).
pub fn std_sync(root: &Path) -> io::Result<Vec<String>> {
    let mut out = vec![root.display().to_string()];
    std_dir(root, &mut out)?;
    out.sort();
    Ok(out)
}

fn std_dir(dir: &Path, out: &mut Vec<String>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        // file_type() comes from the directory entry itself and does not follow symlinks.
        let kind = entry.file_type()?;
        if kind.is_dir() {
            out.push(path.display().to_string());
            std_dir(&path, out)?;
        } else if kind.is_symlink() && path.is_dir() {
            out.push(symlink_entry(&path, &std::fs::read_link(&path)?));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------- rayon

/// Parallel walk with rayon: the entries of each directory are split across
/// the current rayon pool, subdirectories recurse in parallel.
pub fn rayon(root: &Path) -> io::Result<Vec<String>> {
    let mut out = rayon_dir(root)?;
    out.push(root.display().to_string());
    out.sort();
    Ok(out)
}

fn rayon_dir(dir: &Path) -> io::Result<Vec<String>> {
    let entries = std::fs::read_dir(dir)?.collect::<io::Result<Vec<_>>>()?;
    entries
        .into_par_iter()
        .map(|entry| {
            let path = entry.path();
            let kind = entry.file_type()?;
            if kind.is_dir() {
                let mut below = rayon_dir(&path)?;
                below.push(path.display().to_string());
                Ok(below)
            } else if kind.is_symlink() && path.is_dir() {
                Ok(vec![symlink_entry(&path, &std::fs::read_link(&path)?)])
            } else {
                Ok(Vec::new())
            }
        })
        .try_reduce(Vec::new, |mut a, mut b| {
            a.append(&mut b);
            Ok(a)
        })
}

// ---------------------------------------------------------------- tokio

/// The seed's second block: every entry costs a `read_link`; a symlink that
/// resolves to a directory is reported, not followed.
async fn report_symlink(path: PathBuf, found: Found) {
    if let Ok(target) = tokio::fs::read_link(&path).await
        && path.is_dir()
    {
        found.push(symlink_entry(&path, &target));
    }
}

/// The seed's first block: a directory is reported and queued for the next level.
fn report_dir(metadata: &Metadata, path: &Path, found: &Found) -> Option<PathBuf> {
    if metadata.is_dir() {
        found.push(path.display().to_string());
        Some(path.to_path_buf())
    } else {
        None
    }
}

/// How one directory's entries are handled: the four seed variants.
#[derive(Clone, Copy)]
enum Spawning {
    /// Both blocks awaited inline, nothing spawned.
    Serial,
    /// Each block spawned and its handle awaited at once.
    SpawnEach,
    /// Both blocks spawned, then awaited together with `tokio::join!`.
    Join,
}

/// Drains the work list level by level; each level's directories are read
/// one after the other (the seed's first versions).
async fn walk_levels_serial(root: &Path, spawning: Spawning) -> io::Result<Vec<String>> {
    let found = Found::new(root);
    let work: WorkList = Arc::new(AsyncMutex::new(vec![root.to_path_buf()]));
    loop {
        let level = std::mem::take(&mut *work.lock().await);
        if level.is_empty() {
            break;
        }
        for dir in level {
            read_one_dir(dir, spawning, &work, &found).await?;
        }
    }
    Ok(found.into_sorted())
}

async fn read_one_dir(
    dir: PathBuf,
    spawning: Spawning,
    work: &WorkList,
    found: &Found,
) -> io::Result<()> {
    let mut entries = tokio::fs::read_dir(&dir).await?;
    let dirs = Arc::new(AsyncMutex::new(Vec::new()));
    while let Some(entry) = entries.next_entry().await? {
        // Like std's, tokio's DirEntry::metadata does not follow symlinks.
        let metadata = entry.metadata().await?;
        let path = entry.path();
        let first = {
            let (path, dirs, found) = (path.clone(), dirs.clone(), found.clone());
            async move {
                if let Some(sub) = report_dir(&metadata, &path, &found) {
                    dirs.lock().await.push(sub);
                }
            }
        };
        let second = report_symlink(path, found.clone());
        match spawning {
            Spawning::Serial => {
                first.await;
                second.await;
            }
            Spawning::SpawnEach => {
                joined(tokio::spawn(first).await)?;
                joined(tokio::spawn(second).await)?;
            }
            Spawning::Join => {
                let (a, b) = tokio::join!(tokio::spawn(first), tokio::spawn(second));
                joined(a)?;
                joined(b)?;
            }
        }
    }
    work.lock().await.append(&mut *dirs.lock().await);
    Ok(())
}

/// The seed's first version: tokio::fs, a shared work list, nothing spawned.
pub async fn tokio_serial(root: &Path) -> io::Result<Vec<String>> {
    walk_levels_serial(root, Spawning::Serial).await
}

/// Both blocks of every entry spawned and each awaited at once: spawning
/// buys no concurrency, only a task's overhead per block (the seed's slowest).
pub async fn tokio_spawn_each(root: &Path) -> io::Result<Vec<String>> {
    walk_levels_serial(root, Spawning::SpawnEach).await
}

/// Both blocks of every entry spawned and awaited together with `tokio::join!`:
/// two blocks overlap, entries and directories still go one at a time.
pub async fn tokio_join(root: &Path) -> io::Result<Vec<String>> {
    walk_levels_serial(root, Spawning::Join).await
}

/// The seed's fast version: every directory of a level is spawned into a
/// `JoinSet`, and inside each, both blocks of every entry are spawned into
/// another; nothing is awaited until all of a level is in flight.
pub async fn tokio_joinset(root: &Path) -> io::Result<Vec<String>> {
    let found = Found::new(root);
    let work: WorkList = Arc::new(AsyncMutex::new(vec![root.to_path_buf()]));
    loop {
        let level = std::mem::take(&mut *work.lock().await);
        if level.is_empty() {
            break;
        }
        let mut readers = JoinSet::new();
        for dir in level {
            readers.spawn(read_one_dir_joinset(dir, work.clone(), found.clone()));
        }
        while let Some(done) = readers.join_next().await {
            joined(done)??;
        }
    }
    Ok(found.into_sorted())
}

async fn read_one_dir_joinset(dir: PathBuf, work: WorkList, found: Found) -> io::Result<()> {
    let mut entries = tokio::fs::read_dir(&dir).await?;
    let dirs = Arc::new(AsyncMutex::new(Vec::new()));
    let mut blocks = JoinSet::new();
    while let Some(entry) = entries.next_entry().await? {
        let metadata = entry.metadata().await?;
        let path = entry.path();
        {
            let (path, dirs, found) = (path.clone(), dirs.clone(), found.clone());
            blocks.spawn(async move {
                if let Some(sub) = report_dir(&metadata, &path, &found) {
                    dirs.lock().await.push(sub);
                }
            });
        }
        blocks.spawn(report_symlink(path, found.clone()));
    }
    while let Some(done) = blocks.join_next().await {
        joined(done)?;
    }
    work.lock().await.append(&mut *dirs.lock().await);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::{Tree, TreeSpec};

    fn tree() -> Tree {
        Tree::create(TreeSpec {
            depth: 3,
            fanout: 3,
            files: 2,
            symlink_every: 5,
        })
        .unwrap()
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn every_variant_finds_exactly_the_generated_directories() {
        let tree = tree();
        let root = tree.root();
        let expected = tree.expected();
        // 1 + 3 + 9 + 27 directories and 39 / 5 = 7 symlinks to directories.
        assert_eq!(expected.len(), 40 + 7);
        assert_eq!(std_sync(root).unwrap(), expected, "std_sync");
        assert_eq!(rayon(root).unwrap(), expected, "rayon");
        let rt = runtime();
        assert_eq!(
            rt.block_on(tokio_serial(root)).unwrap(),
            expected,
            "tokio_serial"
        );
        assert_eq!(
            rt.block_on(tokio_spawn_each(root)).unwrap(),
            expected,
            "tokio_spawn_each"
        );
        assert_eq!(
            rt.block_on(tokio_join(root)).unwrap(),
            expected,
            "tokio_join"
        );
        assert_eq!(
            rt.block_on(tokio_joinset(root)).unwrap(),
            expected,
            "tokio_joinset"
        );
    }

    #[test]
    fn symlinks_to_directories_are_reported_not_followed() {
        let tree = tree();
        let found = std_sync(tree.root()).unwrap();
        let links: Vec<_> = found.iter().filter(|e| e.contains("@ -> ")).collect();
        assert_eq!(links.len(), 7);
        // Following `link` (it points at root/d0) would list d0's subtree again.
        assert!(!found.iter().any(|e| e.contains("/link/")));
        // A symlink to a file is not a directory.
        assert!(!found.iter().any(|e| e.contains("file_link")));
    }

    #[test]
    fn a_missing_root_is_an_error_in_every_variant() {
        let missing = Path::new("/nonexistent/benchtrack/walk");
        assert!(std_sync(missing).is_err());
        assert!(rayon(missing).is_err());
        let rt = runtime();
        assert!(rt.block_on(tokio_serial(missing)).is_err());
        assert!(rt.block_on(tokio_spawn_each(missing)).is_err());
        assert!(rt.block_on(tokio_join(missing)).is_err());
        assert!(rt.block_on(tokio_joinset(missing)).is_err());
    }
}
