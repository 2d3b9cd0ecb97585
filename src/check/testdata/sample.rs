//! A small bounded cache.

use std::collections::HashMap;
use std::fmt;

/* A block comment that spans lines:
   a cut inside it must read as unfinished. */

/// An entry kept with its size in bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry<T> {
    value: T,
    size: usize,
}

pub struct Cache<K, T> {
    entries: HashMap<K, Entry<T>>,
    budget: usize,
    used: usize,
}

impl<K: std::hash::Hash + Eq + Clone, T> Cache<K, T> {
    pub fn new(budget: usize) -> Self {
        Self { entries: HashMap::new(), budget, used: 0 }
    }

    pub fn insert(&mut self, key: K, value: T, size: usize) -> Option<T> {
        if size > self.budget {
            return None;
        }
        self.used += size;
        let old = self.entries.insert(key, Entry { value, size })?;
        self.used -= old.size;
        Some(old.value)
    }

    pub fn get<'a>(&'a self, key: &K) -> Option<&'a T> {
        self.entries.get(key).map(|e| &e.value)
    }
}

impl<K, T> fmt::Display for Cache<K, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let note = "cache
 usage";
        write!(f, "{note}: {}/{} bytes", self.used, self.budget)
    }
}

macro_rules! square {
    ($x:expr) => {
        $x * $x
    };
}

pub fn area(side: u32) -> u32 {
    match side {
        0 => 0,
        n @ 1..=9 => square!(n),
        _ => r#"big"#.len() as u32,
    }
}
