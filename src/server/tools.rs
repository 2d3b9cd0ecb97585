//! The tools: one small function each that takes the arguments, calls the session on a blocking
//! thread (file I/O and parsing) and renders the outcome.

use rmcp::handler::server::wrapper::Parameters;
use std::ops::ControlFlow;

use rmcp::model::{CallToolResult, ProgressNotificationParam};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};

use super::FilewrightServer;
use super::args::*;
use super::render;
use super::schemas;
use crate::session::{ReadAs, SearchOptions};

#[tool_router(vis = "pub(crate)")]
impl FilewrightServer {
    /// Create or replace a file with `content`. For a large file send only the FIRST PART here
    /// (at most ~8,000 characters) and add each next part with append_file: a longer call may be
    /// cut off by your output limit. The write is atomic and missing parent directories are
    /// created. The result ends with a syntax check of the file (Python, JS/TS, JSON, YAML,
    /// HTML, CSS, TOML, Rust, Bash, Markdown code blocks).
    #[tool(
        input_schema = schemas::input("write_file"),
        output_schema = schemas::output("write_file"),
        annotations(title = "Write file", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn write_file(&self, Parameters(args): Parameters<WriteArgs>) -> CallToolResult {
        self.run(move |session| {
            session.write_file_in(
                args.path.as_deref(),
                args.content.as_deref(),
                args.expected_sha256.as_deref(),
                args.agent.as_deref(),
                args.encoding.as_deref(),
            )
        })
        .await
    }

    /// Append the next part of a file (at most ~8,000 characters per call). Content is added
    /// exactly as sent; the file is created if missing. Pass `expected_size` (the size from your
    /// last result) to be safe after an interruption. A retried call whose chunk the file already
    /// ends with is not appended twice. The result gives the new size and a syntax check of the
    /// whole file ("incomplete so far" is expected until the last part).
    #[tool(
        input_schema = schemas::input("append_file"),
        output_schema = schemas::output("append_file"),
        annotations(title = "Append to file", read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn append_file(&self, Parameters(args): Parameters<AppendArgs>) -> CallToolResult {
        self.run(move |session| {
            session.append_file(
                args.path.as_deref(),
                args.content.as_deref(),
                crate::files::Expected { size: args.expected_size, sha256: args.expected_sha256 },
                args.agent.as_deref(),
            )
        })
        .await
    }

    /// Read a text file as numbered lines (`<n>\t<text>`), by default 2000 lines or 50,000
    /// characters at a time, whichever comes first (the result says the offset to read on
    /// from; an explicit `limit` gets that many lines). Use a
    /// negative `offset` to see the end (`offset: -20` = last 20 lines), for example to find
    /// where an interrupted file stops before appending the rest. Reports total lines, bytes and
    /// the file's sha256. With `anchors: true` each line shows as `<n>#<hash>\t<text>`: `<hash>` is
    /// 3 characters of a hash of that line's text, stable and the same for the same text; use
    /// `<n>#<hash>` in edit_file's line edits. A notebook (`.ipynb`) is shown as its cells:
    /// each with its 0-based index, id, type, source lines numbered from 1 within the cell
    /// (anchors `<cell>:<n>#<hash>`), and one line summarising its outputs (no base64); `offset`/`limit` then count cells
    /// (0-based; negative from the end) and a page ends at a cell. `raw: true` shows a
    /// notebook's JSON as numbered lines instead (a notebook that does not parse is shown so,
    /// with the reason).
    #[tool(
        input_schema = schemas::input("read_file"),
        output_schema = schemas::output("read_file"),
        annotations(title = "Read file", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn read_file(&self, Parameters(args): Parameters<ReadArgs>) -> CallToolResult {
        self.run(move |session| {
            let how = ReadAs { anchors: args.anchors.unwrap_or(false), raw: args.raw.unwrap_or(false) };
            session.read_file(args.path.as_deref(), args.offset, args.limit, how)
        })
        .await
    }

    /// Find files by glob, newest first, with size and lines: `*.ts` matches file names at any
    /// depth, `src/**/*.ts` paths below `path`. Honours .gitignore and .ignore; at most `max_results`
    /// (default 200, or fewer to stay within 50,000 characters), with a count of the rest.
    #[tool(
        input_schema = schemas::input("find_files"),
        output_schema = schemas::output("find_files"),
        annotations(title = "Find files", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn find_files(&self, Parameters(args): Parameters<FindArgs>) -> CallToolResult {
        self.run(move |session| {
            session.find_files(args.pattern.as_deref(), args.path.as_deref(), args.max_results)
        })
        .await
    }

    /// Search file contents for a literal string (or, with `regex: true`, a regular expression),
    /// like ripgrep: matching lines as `path:line: text`, grouped by file, with `context` lines
    /// around them. Honours .gitignore and .ignore and skips binary files; at most `max_results` matching
    /// lines (default 200, or fewer to stay within 50,000 characters), with a count of the rest.
    #[tool(
        input_schema = schemas::input("search_files"),
        output_schema = schemas::output("search_files"),
        annotations(title = "Search files", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn search_files(&self, Parameters(args): Parameters<SearchArgs>) -> CallToolResult {
        self.run(move |session| {
            let options = SearchOptions {
                path: args.path.as_deref(),
                glob: args.glob.as_deref(),
                regex: args.regex.unwrap_or(false),
                ignore_case: !args.case_sensitive.unwrap_or(true),
                context: args.context,
                max_results: args.max_results,
            };
            session.search_files(args.pattern.as_deref(), options)
        })
        .await
    }

    /// Move (rename) a file in one atomic step; missing directories of `to` are created. An
    /// existing file at `to` is replaced only with `overwrite: true`. Both paths are claimed and
    /// journaled; undo both paths to take it back. The result checks the file at its new path.
    #[tool(
        input_schema = schemas::input("move_file"),
        output_schema = schemas::output("move_file"),
        annotations(title = "Move file", read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = false)
    )]
    async fn move_file(&self, Parameters(args): Parameters<MoveArgs>) -> CallToolResult {
        self.run(move |session| {
            session.move_file(
                args.from.as_deref(),
                args.to.as_deref(),
                args.overwrite.unwrap_or(false),
                args.agent.as_deref(),
            )
        })
        .await
    }

    /// Copy a file: the copy gets its bytes and permission bits, written atomically; missing
    /// directories of `to` are created. An existing file at `to` is replaced only with
    /// `overwrite: true`. One file per call: a directory is refused (copy its files one by one).
    /// `to` is claimed and journaled, and `undo` on `to` takes the copy back. The result checks
    /// the copy (read back, and its syntax).
    #[tool(
        input_schema = schemas::input("copy_file"),
        output_schema = schemas::output("copy_file"),
        annotations(title = "Copy file", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn copy_file(&self, Parameters(args): Parameters<CopyArgs>) -> CallToolResult {
        self.run(move |session| {
            session.copy_file(
                args.from.as_deref(),
                args.to.as_deref(),
                args.overwrite.unwrap_or(false),
                args.agent.as_deref(),
            )
        })
        .await
    }

    /// Create a directory, with any missing parents. A directory already there is a success
    /// that says so; a file in the way is an error. Claimed and journaled.
    #[tool(
        input_schema = schemas::input("create_directory"),
        output_schema = schemas::output("create_directory"),
        annotations(title = "Create directory", read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn create_directory(&self, Parameters(args): Parameters<MkdirArgs>) -> CallToolResult {
        self.run(move |session| session.create_directory(args.path.as_deref(), args.agent.as_deref())).await
    }

    /// Read several files in one call (at most 100), each shown as read_file shows it
    /// (numbered lines, totals, sha256), in the order given, with the same `offset` and
    /// `limit` for each. A path that cannot be read gets its own error and the others are still
    /// read. The result holds at most 50,000 characters: a file reaching that is cut at a line
    /// (read on with read_file from its next offset), and the paths after it are named, not
    /// read. Notebooks are shown as cells as read_file shows them (`raw: true`: as JSON lines).
    #[tool(
        input_schema = schemas::input("read_multiple_files"),
        output_schema = schemas::output("read_multiple_files"),
        annotations(title = "Read multiple files", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn read_multiple_files(&self, Parameters(args): Parameters<ReadManyArgs>) -> CallToolResult {
        self.run(move |session| {
            let raw = args.raw.unwrap_or(false);
            session.read_multiple_files(args.paths.as_deref(), args.offset, args.limit, raw)
        })
        .await
    }

    /// Facts about a file or directory without reading it into your context: kind, size,
    /// modification time, permissions; for a file its lines, line endings, encoding, sha256, an
    /// image's type and pixel size, its language and syntax status (files up to 1 MiB); for a
    /// directory its number of entries; and the last change filewright recorded and the live
    /// claim, if any. What was not computed is said.
    #[tool(
        input_schema = schemas::input("get_file_info"),
        output_schema = schemas::output("get_file_info"),
        annotations(title = "Get file info", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_file_info(&self, Parameters(args): Parameters<InfoArgs>) -> CallToolResult {
        self.run(move |session| session.get_file_info(args.path.as_deref())).await
    }

    /// Look at an image: a PNG, JPEG, GIF or WebP file (at most 4 MiB) returned as image
    /// content, its type told from its bytes, with its size in pixels. A text file (SVG
    /// included) is an error that says to use read_file.
    #[tool(
        input_schema = schemas::input("read_media_file"),
        output_schema = schemas::output("read_media_file"),
        annotations(title = "Read image", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn read_media_file(&self, Parameters(args): Parameters<MediaArgs>) -> CallToolResult {
        self.run(move |session| session.read_media_file(args.path.as_deref())).await
    }

    /// Delete a file, or an empty directory (a directory with entries is refused). The file is
    /// claimed and journaled, and `undo` on its path brings it back.
    #[tool(
        input_schema = schemas::input("delete_file"),
        output_schema = schemas::output("delete_file"),
        annotations(title = "Delete file", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn delete_file(&self, Parameters(args): Parameters<DeleteArgs>) -> CallToolResult {
        self.run(move |session| session.delete_file(args.path.as_deref(), args.agent.as_deref())).await
    }

    /// Put a file back as it was before its last `steps` changes (default 1) made through
    /// filewright on this root (writes, appends, edits and undos, by any agent): take back a
    /// wrong chunk without rewriting the file. Claims hold; the undo is journaled and can be
    /// undone itself. Refused when the file was changed outside filewright since (unless
    /// `force: true`) or when an old version is no longer kept; list_artifacts with
    /// `history: true` shows which versions `steps` can restore.
    #[tool(
        input_schema = schemas::input("undo"),
        output_schema = schemas::output("undo"),
        annotations(title = "Undo", read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = false)
    )]
    async fn undo(&self, Parameters(args): Parameters<UndoArgs>) -> CallToolResult {
        self.run(move |session| {
            session.undo(args.path.as_deref(), args.steps, args.force.unwrap_or(false), args.agent.as_deref())
        })
        .await
    }

    /// The outline of a file: its definitions with line ranges and nesting, from the syntax
    /// tree (functions, classes, methods, structs, enums, traits, impls, CSS rules, the
    /// top-level keys of JSON, YAML and TOML, Markdown headings, HTML headings, landmarks and
    /// ids, Bash functions), one per line like
    /// `12-48 class Timer`. Use it to find your way in a file you wrote without reading it
    /// back, then read_file with an offset. A file with syntax problems gets what parsed.
    #[tool(
        input_schema = schemas::input("outline"),
        output_schema = schemas::output("outline"),
        annotations(title = "Outline", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn outline(&self, Parameters(args): Parameters<OutlineArgs>) -> CallToolResult {
        self.run(move |session| session.outline(args.path.as_deref())).await
    }

    /// Strict final check: call it BEFORE you say you are done. For each file (the given
    /// `paths`, or every file written on this root since this server started) it reports size,
    /// lines, language and whether it is complete, incomplete (unclosed at the end, or empty),
    /// broken (errors at line:col), holding stubs or placeholders, referring to files, modules,
    /// imported names or DOM ids that do not exist (each with its line), or missing, ending with
    /// a one-line verdict. Incomplete counts as a failure here: finish those files with append_file.
    #[tool(
        input_schema = schemas::input("check_files"),
        output_schema = schemas::output("check_files"),
        annotations(title = "Check files", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn check_files(
        &self,
        Parameters(args): Parameters<CheckArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        // Progress goes out from the blocking thread in order, one notification per file,
        // when the client asked for it; a cancelled request stops after the current file.
        let token = context.meta.get_progress_token();
        let (peer, cancelled, runtime) = (context.peer, context.ct, tokio::runtime::Handle::current());
        self.run(move |session| {
            session.check_files(args.paths.as_deref(), &mut |checked| {
                if let Some(token) = &token {
                    let param = ProgressNotificationParam::new(token.clone(), checked.done as f64)
                        .with_total(checked.total as f64)
                        .with_message(format!("checked {}", checked.path));
                    if let Err(e) = runtime.block_on(peer.notify_progress(param)) {
                        tracing::debug!("progress not sent: {e}");
                    }
                }
                if cancelled.is_cancelled() { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
            })
        })
        .await
    }

    /// Claim files for an agent before writing them, so no other agent can overwrite them
    /// (all or nothing: if any is owned by another agent, nothing is claimed and the error
    /// names the owners). Writing a file also claims it. Claims coordinate cooperating agents
    /// on this root; they are not access control.
    #[tool(
        input_schema = schemas::input("claim_files"),
        output_schema = schemas::output("claim_files"),
        annotations(title = "Claim files", read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn claim_files(&self, Parameters(args): Parameters<ClaimArgs>) -> CallToolResult {
        self.run(move |session| session.claim_files(args.paths.as_deref(), args.agent.as_deref())).await
    }

    /// Release an agent's claims on files (all of its claims when `paths` is omitted), so
    /// other agents may write them.
    #[tool(
        input_schema = schemas::input("release_files"),
        output_schema = schemas::output("release_files"),
        annotations(title = "Release files", read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn release_files(&self, Parameters(args): Parameters<ReleaseArgs>) -> CallToolResult {
        self.run(move |session| session.release_files(args.paths.as_deref(), args.agent.as_deref())).await
    }

    /// List every live claim on this root: which agent owns which file, since when.
    #[tool(
        input_schema = schemas::input("list_claims"),
        output_schema = schemas::output("list_claims"),
        annotations(title = "List claims", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn list_claims(
        &self,
        Parameters(_): Parameters<NoArgs>,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> CallToolResult {
        // The caller is whom the result calls "the agent the call acted for": over HTTP the
        // principal, not the process's --agent.
        let caller = super::principal_of(&context).map(|p| p.agent.clone());
        self.run(move |session| session.list_claims(caller.as_deref())).await
    }

    /// List the artifacts written through filewright on this root (by any agent): latest
    /// size, sha256, writer and time per file, whether the file on disk still matches, and
    /// with `history: true` every recorded write.
    #[tool(
        input_schema = schemas::input("list_artifacts"),
        output_schema = schemas::output("list_artifacts"),
        annotations(title = "List artifacts", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn list_artifacts(&self, Parameters(args): Parameters<ArtifactsArgs>) -> CallToolResult {
        self.run(move |session| {
            session.list_artifacts(args.agent.as_deref(), args.path.as_deref(), args.history.unwrap_or(false))
        })
        .await
    }

    /// Replace text in a file: `old_string` must occur exactly once (or set replace_all), or
    /// pass `edits` to apply several, all or nothing. When old_string differs from the file
    /// only in trailing whitespace, indentation (a uniform shift, tabs against spaces) or
    /// Unicode look-alike punctuation, the one place it matches that way is used, new_string is
    /// re-indented to the file's style, and the result says what was ignored; two such places
    /// change nothing and the error lists them with anchors (`tolerant: false` turns this off). An `edits` item may
    /// instead edit whole lines by anchor (from read_file with anchors: true):
    /// `{from: "12#kq7", to: "14#b3x", new_string}` replaces lines 12-14 (empty new_string
    /// deletes them), `{after: "12#kq7" | "0", new_string}` inserts after line 12 or at the top.
    /// Line edits all refer to the file before the call, may not overlap, and apply before the
    /// old_string edits; a stale anchor changes nothing and the error shows fresh ones. Use
    /// anchors when the text repeats. The file's line endings (CRLF kept even when you send
    /// LF), final newline and BOM are preserved; the write is atomic. The result shows a
    /// unified diff and the syntax check, counting problems the edit introduced.
    /// `dry_run: true` shows the diff without writing. In a notebook (`.ipynb`) each edit
    /// changes one cell's source as read_file shows it: old_string is matched within one cell
    /// (never across cells or in the JSON), anchors carry their cell (`3:12#kq7`), edits apply
    /// in order, and a code cell whose source changed loses its outputs.
    #[tool(
        input_schema = schemas::input("edit_file"),
        output_schema = schemas::output("edit_file"),
        annotations(title = "Edit file", read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = false)
    )]
    async fn edit_file(&self, Parameters(mut args): Parameters<EditArgs>) -> CallToolResult {
        let edits = match args.edits() {
            Ok(edits) => edits,
            Err(e) => return render::error_result(&e.to_string()),
        };
        self.run(move |session| {
            session.edit_file(
                args.path.as_deref(),
                edits,
                args.dry_run.unwrap_or(false),
                args.tolerant.unwrap_or(true),
                args.expected_sha256.as_deref(),
                args.agent.as_deref(),
            )
        })
        .await
    }

    /// Change a Jupyter notebook (`.ipynb`) cell by cell, all or nothing: `insert` a cell
    /// (before the cell named by `cell_id` or `index`, or at the end), `replace` a cell's
    /// `source` and/or `cell_type`, `delete` a cell. Send sources as plain text, never
    /// JSON-escaped. A missing notebook is created (nbformat 4.5, Python kernel unless
    /// `language` says otherwise). Build a large notebook in pieces: at most ~8,000 characters
    /// per call, a few cells at a time; the file is a valid notebook after every call. New
    /// cells get unique ids; a replaced code cell loses its outputs and execution count; every
    /// other byte of the file is kept. The result says what each edit did and checks the
    /// notebook (nbformat schema, and each code cell's syntax, naming the cell).
    #[tool(
        input_schema = schemas::input("edit_notebook"),
        output_schema = schemas::output("edit_notebook"),
        annotations(title = "Edit notebook", read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = false)
    )]
    async fn edit_notebook(&self, Parameters(args): Parameters<EditNotebookArgs>) -> CallToolResult {
        self.run(move |session| {
            session.edit_notebook(
                args.path.as_deref(),
                args.edits,
                args.language.as_deref(),
                args.expected_sha256.as_deref(),
                args.agent.as_deref(),
            )
        })
        .await
    }

    /// Apply one change across files, all or nothing: a Codex patch (`*** Begin Patch` ...
    /// `*** End Patch`) or a unified diff (`git diff`, `diff -u`). Files can be added, updated,
    /// moved and deleted; as in Codex, adding or moving onto an existing file replaces it (undo
    /// restores it). Hunks match whole lines (a unified diff's line numbers are hints), tolerating trailing whitespace, a uniform indentation shift and look-alike
    /// punctuation as edit_file does, but only where exactly one place matches. If any hunk of
    /// any file does not apply, or any path is outside the root, no file changes and the error
    /// names the file and hunk with the closest lines. Every path is claimed and journaled
    /// (`undo` works per path). The result lists each file (added, updated, moved, deleted,
    /// with line counts) with its syntax check.
    #[tool(
        input_schema = schemas::input("apply_patch"),
        output_schema = schemas::output("apply_patch"),
        annotations(title = "Apply patch", read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = false)
    )]
    async fn apply_patch(&self, Parameters(args): Parameters<PatchArgs>) -> CallToolResult {
        self.run(move |session| {
            session.apply_patch(
                args.patch.as_deref(),
                args.tolerant.unwrap_or(true),
                args.dry_run.unwrap_or(false),
                args.expected_sha256.as_ref(),
                args.agent.as_deref(),
            )
        })
        .await
    }

    /// List a directory: entries with type and size, directories first, to `depth` levels
    /// (default 1). Honours .gitignore and .ignore files, as find_files and search_files do,
    /// unless `gitignore: false`; hidden names only with `include_hidden`. Symlinks are shown,
    /// never followed. At most 500 entries (fewer when they would pass 50,000 characters), with a
    /// count of the rest.
    #[tool(
        input_schema = schemas::input("list_directory"),
        output_schema = schemas::output("list_directory"),
        annotations(title = "List directory", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn list_directory(&self, Parameters(args): Parameters<ListArgs>) -> CallToolResult {
        self.run(move |session| {
            session.list_directory(
                args.path.as_deref(),
                args.depth,
                args.include_hidden.unwrap_or(false),
                args.gitignore.unwrap_or(true),
            )
        })
        .await
    }
}
