//! Spare files in the state directory that a whole-file write swaps into place, so that
//! replacing a file creates and frees no inode.
//!
//! An atomic replace writes a new file and renames it over the old one: every write allocates
//! an inode and frees one. On ext4 without a journal (this project's test machines), the
//! allocator skips every inode freed in the last minute or more, checking each one in the inode
//! table, so a new inode cost 25 to 100 µs in a directory with many recent writes, and the
//! freeing of the old one as much again. Here a write goes into a spare instead (its blocks
//! overwritten, its length set), and `renameat2(RENAME_EXCHANGE)` swaps it with the file in
//! one step: the name shows the old content or the new, never a mix, as with a rename. The
//! old file's inode, now at the spare's name, becomes the next spare.
//!
//! What a rename gives after a power loss is kept too. A spare is empty when it is written
//! (a recycled one is truncated on a background thread), so its content goes to newly
//! allocated blocks, and their allocation is forced before the swap, as ext4 itself does
//! before a rename over an existing file (`auto_da_alloc`): the journal then commits the data
//! before the swap, and the name shows the old content or the new. Spares are therefore used
//! on ext4 only; `--durable` syncs the spare before the swap.
//!
//! A file is swapped only when that cannot be seen in anything but its content and inode
//! number, and the old file becomes a spare only when no one has it open: a reader that
//! opened it before the swap reads it whole, as after a rename. The old file must be a regular file with one link (a second link keeps the old
//! content, as a rename would), of this process's user and group, and without extended
//! attributes (an ACL, a security label): a spare must never carry one file's attributes to
//! another. Every other case, and every failure before the swap, is left to the caller's
//! temporary file and rename. Linux only.
//!
//! Spares are named `<pid>-<n>` in `<state dir>/spares`; a start removes those of processes
//! that are gone. A kill leaves at most a few, each holding some old version of a file.

use std::fs::File;
use std::os::fd::{AsFd, BorrowedFd};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rustix::fs::{Mode, OFlags};

/// Spares kept ready at most; past this a recycled one is removed.
const POOL: usize = 4;

/// The spares of this process: a directory and the files ready in it.
#[derive(Debug)]
pub struct Spares {
    dir: File,
    /// The device the directory is on: only files on it can be swapped.
    dev: u64,
    ready: Mutex<Vec<Spare>>,
    /// Set when a swap failed for a reason that would repeat (another mount, no
    /// `RENAME_EXCHANGE`): every write then takes the caller's way.
    off: AtomicBool,
}

/// A spare file: its name in the directory and a handle to write it.
#[derive(Debug)]
pub struct Spare {
    name: String,
    file: File,
}

impl Spare {
    /// The handle to write the new content into.
    pub fn file(&self) -> &File {
        &self.file
    }
}

/// The file to be replaced, as it was found fit for a swap.
#[derive(Debug)]
pub struct Fit {
    /// Its permission bits, for the new content.
    pub mode: u32,
}

/// What a swap did.
#[derive(Debug, PartialEq, Eq)]
pub enum Swapped {
    /// The spare is in place; what was at the name is now a spare (or removed).
    Done,
    /// Nothing changed: the caller replaces the file its own way.
    NotSwapped,
}

impl Spares {
    /// Opens (creating it) `<state_dir>/spares` and removes the spares of processes that are
    /// gone. None when the directory cannot be used.
    ///
    /// # Ambient authority
    /// Creates and opens the host path `state_dir/spares`.
    pub fn open(state_dir: &Path) -> Option<Spares> {
        let path = state_dir.join("spares");
        if let Err(e) = std::fs::create_dir_all(&path) {
            tracing::debug!("no spare files for writes: {e}");
            return None;
        }
        let dir = match rustix::fs::open(
            &path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            Ok(fd) => File::from(fd),
            Err(e) => {
                tracing::debug!("no spare files for writes: {e}");
                return None;
            }
        };
        // ext4's magic number: see the module's note on power loss.
        const EXT4: u64 = 0xEF53;
        match rustix::fs::fstatfs(&dir) {
            Ok(fs) if fs.f_type as u64 == EXT4 => {}
            _ => {
                tracing::debug!("no spare files for writes: the state directory is not on ext4");
                return None;
            }
        }
        let dev = rustix::fs::fstat(&dir).ok()?.st_dev;
        let spares = Spares { dir, dev, ready: Mutex::new(Vec::new()), off: AtomicBool::new(false) };
        spares.sweep(&path);
        Some(spares)
    }

    /// Removes the spares in `path` (this directory) whose process is gone.
    fn sweep(&self, path: &Path) {
        let Ok(entries) = std::fs::read_dir(path) else { return };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) =
                name.to_str().and_then(|n| n.split('-').next()).and_then(|p| p.parse::<u32>().ok())
            else {
                continue;
            };
            if !crate::workspace::process_alive(pid) {
                let _ = rustix::fs::unlinkat(&self.dir, &name, rustix::fs::AtFlags::empty());
            }
        }
    }

    /// Whether `old` (an open handle on the file at the name, with `dev` its device) may be
    /// swapped out, and its permission bits.
    pub fn fit(&self, old: BorrowedFd<'_>) -> Option<Fit> {
        if self.off.load(Ordering::Relaxed) {
            return None;
        }
        let stat = rustix::fs::fstat(old).ok()?;
        (stat.st_dev == self.dev && alone_and_ours(old, &stat)).then_some(Fit { mode: stat.st_mode & 0o7777 })
    }

    /// An empty spare to write into: one ready, or a new one.
    pub fn take(&self) -> Option<Spare> {
        let ready = self.ready.lock().unwrap_or_else(|p| p.into_inner()).pop();
        if let Some(spare) = ready {
            // Truncated when it was recycled; one given back after a failed write may not be.
            if spare.file.metadata().is_ok_and(|m| m.len() == 0) || spare.file.set_len(0).is_ok() {
                return Some(spare);
            }
            self.remove(&spare.name);
            return None;
        }
        // Unique in this process, whatever number of sessions share the directory.
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!("{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.dir, name.as_str(), flags, Mode::from_raw_mode(0o600)).ok()?;
        let spare = Spare { name, file: File::from(fd) };
        // A new file with an attribute (an inherited ACL, a security label) would carry it.
        let fit = rustix::fs::fstat(spare.file.as_fd()).is_ok_and(|s| alone_and_ours(spare.file.as_fd(), &s));
        if !fit {
            self.off.store(true, Ordering::Relaxed);
            self.remove(&spare.name);
            return None;
        }
        Some(spare)
    }

    /// Makes the written `spare` ready to be swapped in: synced with `durable`, and otherwise
    /// its blocks allocated (ext4's `EXT4_IOC_ALLOC_DA_BLKS`, what a rename over a file does).
    pub fn settle(&self, spare: &Spare, durable: bool) -> std::io::Result<()> {
        if durable {
            return spare.file.sync_all();
        }
        const EXT4_IOC_ALLOC_DA_BLKS: rustix::ioctl::Opcode = rustix::ioctl::opcode::none(b'f', 12);
        // SAFETY: this ioctl takes no argument, and the handle is an open file on ext4 (checked
        // when the spares were opened).
        let allocated = unsafe {
            rustix::ioctl::ioctl(&spare.file, rustix::ioctl::NoArg::<EXT4_IOC_ALLOC_DA_BLKS>::new())
        };
        allocated.map_err(Into::into)
    }

    /// Spares ready now (for tests, which wait for the background thread to recycle one).
    #[cfg(test)]
    pub(crate) fn ready(&self) -> usize {
        self.ready.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Gives back a spare that was not swapped in.
    pub fn give_back(&self, spare: Spare) {
        self.keep(spare);
    }

    /// Swaps `spare` (written, its mode set) with the file `name` in `parent`. On success what
    /// was at the name becomes a spare when it is still fit for that, and is removed otherwise.
    pub fn swap(self: &Arc<Self>, spare: Spare, parent: BorrowedFd<'_>, name: &std::ffi::OsStr) -> Swapped {
        let exchanged = rustix::fs::renameat_with(
            &self.dir,
            spare.name.as_str(),
            parent,
            name,
            rustix::fs::RenameFlags::EXCHANGE,
        );
        if let Err(e) = exchanged {
            // The caller's rename then does the replace, or reports why it cannot.
            if matches!(e, rustix::io::Errno::XDEV | rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) {
                tracing::debug!("writes no longer swap spare files: {e}");
                self.off.store(true, Ordering::Relaxed);
            }
            if e == rustix::io::Errno::NOENT {
                // The spare's name is gone (or the file's): this spare is of no more use.
                drop(spare);
            } else {
                self.keep(spare);
            }
            return Swapped::NotSwapped;
        }
        // What came out: a directory that appeared at the name meanwhile goes back where it
        // was (and the spare with it), and the caller's rename then refuses it.
        let out = rustix::fs::statat(&self.dir, spare.name.as_str(), rustix::fs::AtFlags::SYMLINK_NOFOLLOW);
        if out
            .is_ok_and(|s| rustix::fs::FileType::from_raw_mode(s.st_mode) == rustix::fs::FileType::Directory)
        {
            let back = rustix::fs::renameat_with(
                &self.dir,
                spare.name.as_str(),
                parent,
                name,
                rustix::fs::RenameFlags::EXCHANGE,
            );
            if back.is_ok() {
                self.keep(spare);
                return Swapped::NotSwapped;
            }
        }
        self.recycle(spare.name);
        Swapped::Done
    }

    /// Keeps what is now at `name` as a spare when it is a regular file that is ours alone,
    /// without attributes, and that no one has open; removes it otherwise (a second link keeps
    /// its content, and a reader that opened the old file goes on reading it whole, as after a
    /// rename). It is truncated on the background thread, after the call, and then ready.
    fn recycle(self: &Arc<Self>, name: String) {
        let flags = OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let opened = rustix::fs::openat(&self.dir, name.as_str(), flags, Mode::empty());
        let fit = opened.ok().filter(|fd| {
            rustix::fs::fstat(fd).is_ok_and(|s| {
                rustix::fs::FileType::from_raw_mode(s.st_mode) == rustix::fs::FileType::RegularFile
                    && alone_and_ours(fd.as_fd(), &s)
            }) && open_only_here(fd.as_fd())
        });
        match fit {
            Some(fd) => crate::background::drop_later(Recycled {
                spare: Some(Spare { name, file: File::from(fd) }),
                spares: Arc::clone(self),
            }),
            None => self.remove(&name),
        }
    }

    fn keep(&self, spare: Spare) {
        let mut ready = self.ready.lock().unwrap_or_else(|p| p.into_inner());
        if ready.len() < POOL {
            ready.push(spare);
        } else {
            drop(ready);
            self.remove(&spare.name);
        }
    }

    fn remove(&self, name: &str) {
        let _ = rustix::fs::unlinkat(&self.dir, name, rustix::fs::AtFlags::empty());
    }
}

/// A spare that held the old file: emptied when dropped (on the background thread, see
/// [`crate::background::drop_later`]), then ready.
struct Recycled {
    spare: Option<Spare>,
    spares: Arc<Spares>,
}

impl Drop for Recycled {
    fn drop(&mut self) {
        if let Some(spare) = self.spare.take() {
            match spare.file.set_len(0) {
                Ok(()) => self.spares.keep(spare),
                Err(_) => self.spares.remove(&spare.name),
            }
        }
    }
}

/// One link, this process's user and group, no extended attributes.
fn alone_and_ours(fd: BorrowedFd<'_>, stat: &rustix::fs::Stat) -> bool {
    stat.st_nlink == 1
        && stat.st_uid == rustix::process::geteuid().as_raw()
        && stat.st_gid == rustix::process::getegid().as_raw()
        && !has_attributes(fd)
}

/// Whether no one but `fd` has the file open. A write lease is granted only then: the kernel
/// counts the open readers and writers of the inode (a mapping counts as open), and refuses it
/// for a program being run. The file is no longer reachable by its old name, so no one can
/// open it after this.
fn open_only_here(fd: BorrowedFd<'_>) -> bool {
    use std::os::fd::AsRawFd;
    let raw = fd.as_raw_fd();
    // SAFETY: fcntl with integer arguments on a descriptor that `fd` keeps open.
    let granted = unsafe { libc::fcntl(raw, libc::F_SETLEASE, libc::F_WRLCK) } == 0;
    if granted {
        // SAFETY: as above; the lease is let go at once.
        unsafe { libc::fcntl(raw, libc::F_SETLEASE, libc::F_UNLCK) };
    }
    granted
}

/// Whether the file has any extended attribute (when unsure: yes).
fn has_attributes(fd: BorrowedFd<'_>) -> bool {
    let mut names = [0u8; 256];
    match rustix::fs::flistxattr(fd, &mut names[..]) {
        Ok(len) => len > 0,
        Err(rustix::io::Errno::OPNOTSUPP) => false,
        Err(_) => true,
    }
}
