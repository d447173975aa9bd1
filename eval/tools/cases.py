# Case definitions for eval/cases: one entry per bug-introducing commit.
# gen.py turns these into sample_version "1" files using a local mirror of each repository.
CASES = [
 dict(repo="jackc/pgx", intro="01d649b2bf", fixes=["9f4a264f8"], truth=[
   dict(path="pgtype/interval.go", start_line=128, line=139, kind="bug", fix="9f4a264f8",
        body="The time part is now only written when `Microseconds != 0`, so an all-zero interval encodes to an empty string, which PostgreSQL rejects. The separators also no longer line up: `\" mon \"` already ends in a space and the time part prepends another (double space), and with no months/days the text starts with a stray space. Always emit the time (`00:00:00`) when nothing else was written and manage the spaces in one place.")]),
 dict(repo="jackc/pgx", intro="1a5fa7fc7f", fixes=["763de30fb"], truth=[
   dict(path="pgtype/array_codec.go", line=134, kind="bug", fix="763de30fb",
        body="The second result of `isNilDriverValuer` (`callNilDriverValuer`) is thrown away, so a typed-nil element whose `driver.Valuer` has a value receiver (safe to call, and it may return a non-NULL value such as `[]`) is now always encoded as NULL; `Map.Encode` honours that flag and calls `Value()` instead. The same applies to the binary path (line 198) and to `CompositeBinaryBuilder`/`CompositeTextBuilder.AppendValue` in composite.go.")]),
 dict(repo="go-chi/chi", intro="0fe6bf1ba3", fixes=["1c2d011f5"], truth=[
   dict(path="middleware/url_format.go", line=67, kind="bug", fix="1c2d011f5",
        body="`rctx` is fetched with a nil check above (`rctx != nil && ...`), but here it is dereferenced unconditionally, so `URLFormat` panics with a nil pointer when a request with an extension has no chi route context (middleware used outside a chi router). Guard the assignment with `if rctx != nil`.")]),
 dict(repo="spf13/cobra", intro="6ba7ebbc1f", fixes=["fdee73b4a"], truth=[
   dict(path="powershell_completions.go", start_line=29, line=32, kind="bug", fix="fdee73b4a",
        body="The program name is now spliced into a PowerShell variable name (`$__<name>CompleterBlock`), but only `-` and `:` are replaced; any other character that is not valid in a bare variable name, such as the `.` in `podman.exe`, produces a broken script and completion stops working. Use the braced form `${__...CompleterBlock}` (or sanitize every non-identifier character).")]),
 dict(repo="libbpf/libbpf", intro="d9f9fd5b22", fixes=["4ab7361e6"], lang="C", truth=[
   dict(path="src/features.c", start_line=395, line=396, kind="error-handling", fix="4ab7361e6",
        body="This branch is also taken when `bpf_link_create` failed with an error other than `-EBADF` (`link_fd < 0`), and then calls `close(link_fd)` on -1. Close the link fd only when `link_fd >= 0`, as the code below does.")]),
 dict(repo="libbpf/libbpf", intro="b521a722b9", fixes=["e3e84bd7d"], lang="C", truth=[
   dict(path="src/ringbuf.c", line=408, kind="bug", fix="e3e84bd7d",
        body="`res` changed from `int64_t` to `int`, but `ringbuf_process_ring()` returns `int64_t`: a count above INT_MAX is truncated (and can turn negative and be reported as an error), and the `res > INT_MAX ? INT_MAX : res` clamp below becomes dead code. Keep `res` as `int64_t`.")]),
 dict(repo="jqlang/jq", intro="b279713e47", fixes=["3985b80ce5"], lang="C", truth=[
   dict(path="src/execute.c", line=1079, kind="bug", fix="3985b80ce5",
        body="`jv_object_get()` consumes (frees) its key argument, but `kk` and `vk` are passed without `jv_copy()`: after the first array element the later iterations use freed strings and the `jv_free(kk)`/`jv_free(vk)` after the loop double-free them. Pass `jv_copy(kk)` and `jv_copy(vk)`.")]),
 dict(repo="nats-io/nats-server", intro="055703f4fa", fixes=["4c4aa3e87"], truth=[
   dict(path="server/monitor.go", start_line=2617, line=2620, kind="bug", fix="4c4aa3e87",
        body="The removed block skipped a leader-only request on a server without JetStream (`errSkipZreq`, \"no cluster\"); now such a server returns a `Disabled` JSInfo before `opts.LeaderOnly` is looked at, so every non-JetStream server answers a leader-only JSZ request, which tooling does not expect (it panicked). Return `errSkipZreq` here when `opts.LeaderOnly` is set.")]),
 dict(repo="nats-io/nats-server", intro="57395bba02", fixes=["51b6d5233"], truth=[
   dict(path="server/raft.go", start_line=1940, line=1942, kind="bug", fix="51b6d5233",
        body="Off by one: when the snapshot is older than the WAL's first entry, `lastIndex`/`pindex` is set to `state.FirstSeq`, but the entry at `FirstSeq` is still in the log and is sent next, so the previous index must be `state.FirstSeq - 1` (as before this change). The follower's pindex ends up one ahead of the leader's log.")]),
 dict(repo="nats-io/nats-server", intro="0cb363b668", fixes=["76cc9b53a"], truth=[
   dict(path="server/filestore.go", start_line=10651, line=10661, kind="bug", fix="76cc9b53a",
        body="The previous `DeleteRange` is grown whenever the last element of `dbs` is a `DeleteRange`, even when blocks holding live messages lie between the two gaps; `First`+`Num` of the merged range then covers messages that were never deleted. Only merge when nothing but empty blocks separates the gaps (track messages seen since the last gap).")]),
 dict(repo="cilium/ebpf", intro="75bce38196", fixes=["9bd3c365c"], truth=[
   dict(path="perf/reader.go", start_line=373, line=375, kind="bug", fix="9bd3c365c",
        body="`pr.rings` has nil entries for offline CPUs (`NewReaderWithOptions` appends `nil` for them), but the new loop over all rings calls `ring.loadHead()` on every entry, so `Read` panics on machines with offline CPUs. Skip nil rings.")]),
 dict(repo="cilium/ebpf", intro="3f1a755f14", fixes=["51ab2a455"], truth=[
   dict(path="elf_reader.go", line=732, kind="bug", fix="51ab2a455",
        body="`ec.btf` is nil for ELF files without BTF (other code in this file checks `ec.btf == nil`), but `loadMaps` now calls `ec.btf.TypeByName` unconditionally, so loading a BTF-less object with legacy maps panics. Guard the lookup with `if ec.btf != nil`.")]),
 dict(repo="cilium/ebpf", intro="d4b2f8ccf6", fixes=["c63a00ba8"], truth=[
   dict(path="btf/types.go", start_line=183, line=186, kind="bug", fix="c63a00ba8",
        body="`Tags` (and `Func.ParamTags`, `Member.Tags`) are new slice fields, but the `copy()` methods still do a shallow `cpy := *t`, so `btf.Copy` and copying a Spec share the tag slices between original and copy; appending to or editing the tags of a copy changes the original. Clone the tag slices in `Struct`/`Union`/`Typedef`/`Func`/`Var` copy and in `copyMembers`.")]),
 dict(repo="caddyserver/caddy", intro="845bc4d50b", fixes=["4b119a475"], truth=[
   dict(path="modules/caddyhttp/reverseproxy/reverseproxy.go", start_line=625, line=627, kind="security", fix="4b119a475",
        body="Every request with `Transfer-Encoding: chunked` is now read fully into memory before it is proxied, whether or not buffering was configured; the comment right above warns this exhausts memory and invites slowloris attacks, and with no `max_buffer_size` the buffer is unbounded. It also breaks streaming uploads that rely on chunked bodies. Keep buffering opt-in.")]),
 dict(repo="caddyserver/caddy", intro="f2ce81cc8b", fixes=["fa4cdde7d"], truth=[
   dict(path="modules/caddyhttp/reverseproxy/fastcgi/fastcgi.go", start_line=287, line=298, kind="bug", fix="fa4cdde7d",
        body="With an empty `SplitPath` the old `strings.Index(path, \"\")` returned 0, so PATH_INFO was set; now the loop runs zero times and `splitPos` returns -1, which `buildEnv` treats as \"no split found\", so PATH_INFO stays empty. Return 0 when `len(t.SplitPath) == 0`.")]),
 dict(repo="prometheus/prometheus", intro="06d0b063ea", fixes=["71217a6e4"], truth=[
   dict(path="promql/parser/parse.go", start_line=456, line=458, kind="bug", fix="71217a6e4",
        body="`p.closingParens[0]` is read without checking the stack is non-empty; on invalid input such as `sum(rate(` no `)` was lexed and the parser panics with index out of range (the grammar actions themselves note the paren \"might not exist on garbage input\"). Check `len(p.closingParens)` first.")]),
 dict(repo="prometheus/prometheus", intro="4efca5ab70", fixes=["fc8004eee"], truth=[
   dict(path="discovery/ec2/ec2.go", start_line=157, line=159, kind="error-handling", fix="fc8004eee",
        body="When `session.NewSessionWithOptions` fails the error is dropped and `NewDiscovery` returns a nil `*Discovery`, which callers do not expect (nil dereference) and which leaves no way to recover without a reload. Return the error, or create the session lazily in `refresh` so it is retried.")]),
 dict(repo="prometheus/prometheus", intro="0851945054", fixes=["edd716e63"], truth=[
   dict(path="storage/local/storage.go", start_line=690, line=692, kind="bug", fix="edd716e63",
        body="The `s.maintainSeries(fp)` call was dropped from the memory-fingerprint case of the maintenance loop, so head chunks are no longer closed, series no longer archived and chunkDescs no longer evicted; nothing in the change explains removing it. Restore the call.")]),
 dict(repo="prometheus/prometheus", intro="ae3d392aa9", fixes=["b880cea61"], truth=[
   dict(path="tsdb/db.go", start_line=985, line=988, kind="concurrency", fix="b880cea61",
        body="`db.mtx` is now held for the whole of `reloadBlocks`, including `openBlocks`, which reads blocks from disk and can take tens of seconds for a large compacted block; every query (`Querier` needs `db.mtx`) and appender blocks meanwhile. Serialize reloads with a separate lock (e.g. `cmtx`) and take `db.mtx` only around the swap of `db.blocks`.")]),
 dict(repo="etcd-io/etcd", intro="d0c4916fe9", fixes=["a2ee62039", "0fa6d3857"], truth=[
   dict(path="server/listener.go", line=19, kind="bug", fix="a2ee62039",
        body="`NewTLSListener` takes `(addr, keyFile, certFile)` but the caller passes `(host, CertFile, KeyFile)`, so `tls.LoadX509KeyPair(certFile, keyFile)` gets the key and certificate swapped and HTTPS fails to start. Use the `(addr, certFile, keyFile)` order."),
   dict(path="server/listener.go", line=23, kind="security", fix="0fa6d3857",
        body="The listener builds a fresh `tls.Config{}`; the old `listenAndServeTLS` copied `s.Server.TLSConfig` (`tlsConf.Server`, which holds `ClientCAs`/`ClientAuth`). With this refactor client certificate verification silently stops: any client is accepted even when a CA file is configured. Pass the server TLS config in and start from it.")]),
 dict(repo="valyala/fasthttp", intro="6309f42188", fixes=["f2ddaffc3"], truth=[
   dict(path="client.go", start_line=1060, line=1062, kind="bug", fix="f2ddaffc3",
        body="`coarseTimeNow()` is refreshed only once per second, yet it is used to compute read/write deadlines (`currentTime.Add(c.WriteTimeout)`) and idle times: deadlines can be up to a second early, so timeouts below a second may expire immediately and all timeouts become inaccurate. Keep `time.Now()` for deadlines (same in server.go and the pipeline client).")]),
 dict(repo="jqlang/jq", intro="6306ac8966", fixes=["88b45771b"], lang="C", truth=[
   dict(path="src/builtin.c", start_line=323, line=325, kind="bug", fix="88b45771b",
        body="Truncating the multiplier with `int n = jv_number_value(num)` changes the result for factors between 0 and 1: `\"abc\" * 0.5` used to return `\"abc\"` (the old loop started from a copy of the string) but now returns null because `n` is 0. Treat 0 < n < 1 as 1, or keep the previous semantics.")]),
]
