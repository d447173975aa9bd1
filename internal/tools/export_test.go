package tools

// OnJoin has d call f whenever a call waits for a download another call started.
func OnJoin(d *Download, f func(key string)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.joined = f
}
