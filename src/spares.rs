//! Unnamed files made ahead of the replaces that will need them.
//!
//! An atomic replace writes the new content into a new file and renames it over the old one.
//! Making that file is the costliest step of a small write in the kernel: it allocates an inode,
//! and ext4 without a journal passes over every inode freed in the last minute to find one
//! (every replace frees one, the file it replaced). So a thread of the lowest priority makes
//! unnamed files (`O_TMPFILE`) ahead, two in each of the last directories written to (one
//! absorbs a call that comes before the thread has made the next); a replace in that
//! directory writes into one, gives it a temporary name (`linkat`) and renames
//! that over the target, exactly as a file it had created itself. Made in the same directory
//! by the same process, the file gets what one created there would: the umask's mode, the
//! group of a setgid directory, a default ACL, a security label.
//!
//! Nothing here is needed for a replace to work: without a spare (the first write into a
//! directory, a filesystem without `O_TMPFILE`, another platform) the replace creates its
//! temporary file as before. An unnamed file is freed by the kernel when its last handle
//! closes, so a killed process leaves nothing behind.

use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use std::os::fd::OwnedFd;

/// A directory by identity: (device, inode).
pub type DirId = (u64, u64);

/// How many spares a directory keeps ready (or being made).
const PER_DIRECTORY: usize = 2;

/// How many spares are kept in all (for the last directories written to): the oldest is
/// closed when another is made.
const KEPT: usize = 8 * PER_DIRECTORY;

/// How many requests for a spare may wait for the making thread; past that one is dropped
/// (that directory's next replace creates its own file).
const WAITING: usize = 16;

/// The spares made ahead, a few per directory, and the thread that makes them.
#[derive(Debug, Default)]
pub struct Spares {
    shared: Arc<Shared>,
    maker: OnceLock<Option<SyncSender<(DirId, OwnedFd)>>>,
}

#[derive(Debug, Default)]
struct Shared {
    /// Spares ready, oldest first, with the directories a spare is being made for.
    ready: Mutex<Ready>,
}

/// A file made ahead, with its mode (permission bits) as made.
type Spare = (std::fs::File, u32);

#[derive(Debug, Default)]
struct Ready {
    spares: Vec<(DirId, Spare)>,
    /// A directory for each spare the thread has been asked for and has not made yet.
    asked: Vec<DirId>,
    /// Directories where unnamed files cannot be made (no `O_TMPFILE` support, no room).
    refused: Vec<DirId>,
}

impl Spares {
    /// Takes a spare of the directory `dir` (held as `handle`) when one is ready, and asks
    /// for more to be made, up to two ready or coming (`PER_DIRECTORY`). The file is empty,
    /// unnamed and open for writing; with it comes its mode as made (so that a replace sets
    /// the old file's only when it differs).
    pub fn take(&self, dir: DirId, handle: &impl std::os::fd::AsFd) -> Option<Spare> {
        if !crate::platform::linux_calls() {
            return None;
        }
        let mut ready = self.shared.lock();
        if ready.refused.contains(&dir) {
            return None;
        }
        let spare = ready.spares.iter().position(|(id, _)| *id == dir).map(|at| ready.spares.remove(at).1);
        let mut coming = ready.spares.iter().filter(|(id, _)| *id == dir).count()
            + ready.asked.iter().filter(|id| **id == dir).count();
        let mut requests = Vec::new();
        while coming < PER_DIRECTORY {
            // A second handle on the directory for the thread (a dup: the directory is not
            // looked up again, so a name swapped meanwhile changes nothing).
            let Ok(copy) = handle.as_fd().try_clone_to_owned() else { break };
            // Asked for now, so that the next take counts it.
            ready.asked.push(dir);
            requests.push(copy);
            coming += 1;
        }
        // The thread is woken once the reply is out, or at once where nothing is put off:
        // either way without the lock, which a request the thread cannot take needs.
        drop(ready);
        if !requests.is_empty() {
            let Some(maker) = self.maker().cloned() else {
                let mut ready = self.shared.lock();
                requests.iter().for_each(|_| ready.unask(dir));
                return spare;
            };
            for copy in requests {
                if let Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) = maker.try_send((dir, copy)) {
                    self.shared.lock().unask(dir);
                }
            }
        }
        spare
    }

    /// The inode of the spare ready for `dir`, if any (for tests that check a replace used it).
    #[cfg(test)]
    pub fn ready_inode(&self, dir: DirId) -> Option<u64> {
        let ready = self.shared.lock();
        let (_, (file, _)) = ready.spares.iter().find(|(id, _)| *id == dir)?;
        rustix::fs::fstat(file).ok().map(|s| s.st_ino)
    }

    /// How many spares are ready for `dir` (for tests).
    #[cfg(test)]
    pub fn ready_count(&self, dir: DirId) -> usize {
        self.shared.lock().spares.iter().filter(|(id, _)| *id == dir).count()
    }

    fn maker(&self) -> Option<&SyncSender<(DirId, OwnedFd)>> {
        self.maker
            .get_or_init(|| {
                let (sender, requests) = sync_channel::<(DirId, OwnedFd)>(WAITING);
                let shared = Arc::clone(&self.shared);
                let started = crate::background::spawn("spares", move || {
                    for (dir, handle) in requests {
                        let made = make(&handle);
                        let mut ready = shared.lock();
                        ready.unask(dir);
                        match made {
                            Ok(file) => {
                                if ready.spares.len() >= KEPT {
                                    let oldest = ready.spares.remove(0);
                                    drop(ready);
                                    drop(oldest);
                                    ready = shared.lock();
                                }
                                ready.spares.push((dir, file));
                            }
                            Err(e) => {
                                tracing::debug!(
                                    "no unnamed files in a directory, replaces there create their own: {e}"
                                );
                                if ready.refused.len() >= KEPT {
                                    ready.refused.remove(0);
                                }
                                ready.refused.push(dir);
                            }
                        }
                    }
                });
                match started {
                    Ok(_) => Some(sender),
                    Err(e) => {
                        tracing::debug!("replaces create their own temporary files: {e}");
                        None
                    }
                }
            })
            .as_ref()
    }
}

impl Ready {
    /// One spare asked for `dir` is no longer coming (made, or never sent to the thread).
    fn unask(&mut self, dir: DirId) {
        if let Some(at) = self.asked.iter().position(|id| *id == dir) {
            self.asked.remove(at);
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Ready> {
        // Nothing here can be left half-changed by a panic.
        self.ready.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// An unnamed file in `dir`, as a create there would make it (mode 0666 less the umask, or
/// what the directory's default ACL says), and that mode.
#[cfg(target_os = "linux")]
fn make(dir: &OwnedFd) -> std::io::Result<Spare> {
    use rustix::fs::{Mode, OFlags, fstat, openat};
    let flags = OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC;
    let fd = openat(dir, ".", flags, Mode::from_raw_mode(0o666))?;
    let mode = fstat(&fd)?.st_mode & 0o7777;
    Ok((std::fs::File::from(fd), mode))
}

#[cfg(not(target_os = "linux"))]
fn make(_dir: &OwnedFd) -> std::io::Result<Spare> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// Gives the unnamed `file` the name `name` in `dir` (a single name, never a path: nothing is
/// resolved beyond `dir`).
///
/// # Ambient authority
/// Where the kernel refuses `AT_EMPTY_PATH`, the file is named through its own handle's entry
/// in `/proc/self/fd`, a host path; it leads only to this process's own open file.
#[cfg(target_os = "linux")]
pub fn name(file: &std::fs::File, dir: &impl std::os::fd::AsFd, name: &str) -> std::io::Result<()> {
    use rustix::fs::{AtFlags, CWD, linkat};
    match linkat(file, "", dir, name, AtFlags::EMPTY_PATH) {
        Ok(()) => Ok(()),
        // Kernels before 6.10 allow AT_EMPTY_PATH only with CAP_DAC_READ_SEARCH; the handle's
        // name in /proc is the documented way for everyone else.
        Err(rustix::io::Errno::NOENT | rustix::io::Errno::PERM) => {
            use std::os::fd::AsRawFd;
            let proc = format!("/proc/self/fd/{}", file.as_raw_fd());
            linkat(CWD, proc.as_str(), dir, name, AtFlags::SYMLINK_FOLLOW).map_err(Into::into)
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(not(target_os = "linux"))]
pub fn name(_file: &std::fs::File, _dir: &impl std::os::fd::AsFd, _name: &str) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::{Read, Seek, Write};
    use std::time::{Duration, Instant};

    fn id_of(dir: &std::fs::File) -> DirId {
        let stat = rustix::fs::fstat(dir).unwrap();
        (stat.st_dev, stat.st_ino)
    }

    /// Takes the spare of `dir` once the thread has made it (asking for it first).
    fn wait_for_spare(spares: &Spares, dir: &std::fs::File) -> std::fs::File {
        let started = Instant::now();
        loop {
            if let Some((file, mode)) = spares.take(id_of(dir), dir) {
                assert_eq!(mode, rustix::fs::fstat(&file).unwrap().st_mode & 0o7777, "the mode made is told");
                return file;
            }
            assert!(started.elapsed() < Duration::from_secs(10), "no spare was made");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// A request the making thread cannot take (its channel full, or the thread gone) is
    /// forgotten, under the lock the take itself held: the take must have let it go.
    #[test]
    fn a_request_the_thread_cannot_take_is_forgotten_without_deadlock() {
        let temp = tempfile::tempdir().unwrap();
        let dir = std::fs::File::open(temp.path()).unwrap();
        let spares = Arc::new(Spares::default());
        let (gone, _) = sync_channel(0);
        spares.maker.set(Some(gone)).unwrap();
        let (done, finished) = std::sync::mpsc::channel();
        let taking = Arc::clone(&spares);
        std::thread::spawn(move || {
            let _ = taking.take(id_of(&dir), &dir);
            done.send(taking.shared.lock().asked.len()).unwrap();
        });
        let asked = finished.recv_timeout(Duration::from_secs(10)).expect("the take deadlocked");
        assert_eq!(asked, 0, "requests never sent are still counted as coming");
    }

    #[test]
    fn a_spare_is_made_after_the_first_take_and_named_into_its_directory() {
        let temp = tempfile::tempdir().unwrap();
        let dir = std::fs::File::open(temp.path()).unwrap();
        let spares = Spares::default();
        assert!(spares.take(id_of(&dir), &dir).is_none(), "nothing is made before it is asked for");
        let mut file = wait_for_spare(&spares, &dir);
        // Unnamed: the directory is still empty.
        assert_eq!(std::fs::read_dir(temp.path()).unwrap().count(), 0);
        assert_eq!(rustix::fs::fstat(&file).unwrap().st_nlink, 0);
        file.write_all(b"made ahead").unwrap();
        name(&file, &dir, "named.txt").unwrap();
        assert_eq!(std::fs::read(temp.path().join("named.txt")).unwrap(), b"made ahead");
        let mut back = String::new();
        file.rewind().unwrap();
        file.read_to_string(&mut back).unwrap();
        assert_eq!(back, "made ahead");
    }

    #[test]
    fn each_spare_is_taken_once_and_belongs_to_its_own_directory() {
        let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (dir_one, dir_two) =
            (std::fs::File::open(one.path()).unwrap(), std::fs::File::open(two.path()).unwrap());
        let spares = Spares::default();
        let _ = spares.take(id_of(&dir_one), &dir_one);
        let first = wait_for_spare(&spares, &dir_one);
        // The take that found it asked for the next one; the other directory has none yet.
        assert!(spares.take(id_of(&dir_two), &dir_two).is_none());
        let second = wait_for_spare(&spares, &dir_one);
        let (a, b) = (rustix::fs::fstat(&first).unwrap(), rustix::fs::fstat(&second).unwrap());
        assert_ne!(a.st_ino, b.st_ino, "a spare is never handed out twice");
        let other = wait_for_spare(&spares, &dir_two);
        name(&other, &dir_two, "there.txt").unwrap();
        assert!(two.path().join("there.txt").exists());
        assert!(!one.path().join("there.txt").exists());
    }

    #[test]
    fn two_replaces_in_a_row_both_find_a_spare() {
        let temp = tempfile::tempdir().unwrap();
        let dir = std::fs::File::open(temp.path()).unwrap();
        let spares = Spares::default();
        assert!(spares.take(id_of(&dir), &dir).is_none());
        let started = Instant::now();
        while spares.ready_count(id_of(&dir)) < PER_DIRECTORY {
            assert!(started.elapsed() < Duration::from_secs(10), "the spares were not made");
            std::thread::sleep(Duration::from_millis(5));
        }
        // Back to back, before the thread can have made another.
        let first = spares.take(id_of(&dir), &dir).expect("a first spare");
        let second = spares.take(id_of(&dir), &dir).expect("a second spare, without waiting");
        let inode = |f: &std::fs::File| rustix::fs::fstat(f).unwrap().st_ino;
        assert_ne!(inode(&first.0), inode(&second.0));
    }

    #[test]
    fn a_spare_is_made_as_a_create_in_that_directory_would_make_the_file() {
        let temp = tempfile::tempdir().unwrap();
        let dir = std::fs::File::open(temp.path()).unwrap();
        let spares = Spares::default();
        let _ = spares.take(id_of(&dir), &dir);
        let spare = wait_for_spare(&spares, &dir);
        name(&spare, &dir, "spare.txt").unwrap();
        std::fs::write(temp.path().join("created.txt"), b"").unwrap();
        let meta = |n: &str| std::fs::metadata(temp.path().join(n)).unwrap();
        use std::os::unix::fs::MetadataExt;
        assert_eq!(meta("spare.txt").mode(), meta("created.txt").mode());
        assert_eq!(
            (meta("spare.txt").uid(), meta("spare.txt").gid()),
            (meta("created.txt").uid(), meta("created.txt").gid())
        );
    }
}
