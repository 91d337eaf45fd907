//! A deterministic directory tree for the walk benchmarks (seed 000), created
//! in a temporary directory and removed when dropped.
//!
//! Every directory below `depth` holds `fanout` subdirectories and `files`
//! small files. Some directories also hold a symlink to a directory (pointing
//! back up the tree, so a walk that followed it would never end) and the root
//! holds a symlink to a file (which no walk reports).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The shape of a generated tree.
#[derive(Clone, Copy, Debug)]
pub struct TreeSpec {
    /// Levels of subdirectories below the root.
    pub depth: usize,
    /// Subdirectories per directory (above the last level).
    pub fanout: usize,
    /// Regular files per directory.
    pub files: usize,
    /// Every `symlink_every`-th directory (in creation order) gets a symlink
    /// `link` to the root's first subdirectory; 0 means none.
    pub symlink_every: usize,
}

/// A generated tree on disk and the listing every walk must report for it.
pub struct Tree {
    // Held for its Drop: removes the whole tree.
    _dir: tempfile::TempDir,
    root: PathBuf,
    expected: Vec<String>,
}

/// How a walk reports a symlink to a directory: the seed prints
/// `path@ -> target` and does not descend into it.
pub fn symlink_entry(path: &Path, target: &Path) -> String {
    format!("{}@ -> {}", path.display(), target.display())
}

impl Tree {
    /// Creates the tree described by `spec` in a fresh temporary directory.
    pub fn create(spec: TreeSpec) -> io::Result<Tree> {
        let dir = tempfile::Builder::new()
            .prefix("benchtrack-walk-")
            .tempdir()?;
        let root = dir.path().join("root");
        fs::create_dir(&root)?;
        let link_target = root.join("d0");
        let mut builder = Builder {
            spec,
            link_target,
            created: 0,
            expected: vec![root.display().to_string()],
        };
        builder.fill(&root, 0)?;
        if spec.files > 0 {
            std::os::unix::fs::symlink(root.join("f0.txt"), root.join("file_link"))?;
        }
        let mut expected = builder.expected;
        expected.sort();
        Ok(Tree {
            _dir: dir,
            root,
            expected,
        })
    }

    /// The directory to walk.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The sorted listing a correct walk returns: the root, every directory,
    /// and every symlink to a directory as [`symlink_entry`].
    pub fn expected(&self) -> &[String] {
        &self.expected
    }
}

struct Builder {
    spec: TreeSpec,
    link_target: PathBuf,
    created: usize,
    expected: Vec<String>,
}

impl Builder {
    fn fill(&mut self, dir: &Path, level: usize) -> io::Result<()> {
        for f in 0..self.spec.files {
            fs::write(dir.join(format!("f{f}.txt")), format!("file {f}\n"))?;
        }
        if level >= self.spec.depth {
            return Ok(());
        }
        for d in 0..self.spec.fanout {
            let sub = dir.join(format!("d{d}"));
            fs::create_dir(&sub)?;
            self.created += 1;
            self.expected.push(sub.display().to_string());
            if self.spec.symlink_every > 0 && self.created.is_multiple_of(self.spec.symlink_every) {
                let link = sub.join("link");
                std::os::unix::fs::symlink(&self.link_target, &link)?;
                self.expected.push(symlink_entry(&link, &self.link_target));
            }
            self.fill(&sub, level + 1)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_has_the_directories_its_spec_asks_for_and_is_removed_on_drop() {
        let spec = TreeSpec {
            depth: 2,
            fanout: 3,
            files: 2,
            symlink_every: 4,
        };
        let tree = Tree::create(spec).unwrap();
        let root = tree.root().to_path_buf();
        // root + 3 + 9 directories, and symlinks in the 4th and 8th created.
        let dirs = tree.expected().iter().filter(|e| !e.contains('@')).count();
        let links = tree.expected().iter().filter(|e| e.contains('@')).count();
        assert_eq!((dirs, links), (13, 3));
        assert!(root.join("d2/d1/f1.txt").is_file());
        assert!(tree.expected().is_sorted());
        drop(tree);
        assert!(!root.exists());
    }
}
