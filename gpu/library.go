package gpu

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sync/semaphore"
)

// LibraryName is the file name of the CUDA backend library.
const LibraryName = "libcuzk.so"

// EnvLibrary is the environment variable holding an explicit library path.
const EnvLibrary = "CUZK_LIB"

type config struct {
	path string
}

// Option configures Load.
type Option func(*config) error

// WithPath makes Load use the library at path (rule 1 of the search order);
// a failure to load it is returned, with no further search.
func WithPath(path string) Option {
	return func(c *config) error {
		if path == "" {
			return fmt.Errorf("gpu: WithPath: empty path")
		}
		c.path = path
		return nil
	}
}

// Library is a loaded libcuzk.so. It is safe for concurrent use.
type Library struct {
	b       *backend
	mu      sync.Mutex
	devices map[int]*Device
}

var (
	loadMu sync.Mutex
	loaded = map[string]*Library{}
)

// Load finds and loads libcuzk.so (search order in the package
// documentation). Loading the same path again returns the same *Library,
// so every caller shares one Device (and one device lock) per GPU. Errors
// match ErrNotLoaded.
func Load(opts ...Option) (*Library, error) {
	var cfg config
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	path := cfg.path
	if path == "" {
		path = os.Getenv(EnvLibrary)
	}
	if path == "" {
		if exe, err := os.Executable(); err == nil {
			p := filepath.Join(filepath.Dir(exe), LibraryName)
			if _, err := os.Stat(p); err == nil {
				path = p
			}
		}
	}
	if path == "" {
		path = LibraryName // resolved by the system loader
	}
	loadMu.Lock()
	defer loadMu.Unlock()
	if l, ok := loaded[path]; ok {
		return l, nil
	}
	b, err := openBackend(path)
	if err != nil {
		return nil, fmt.Errorf("gpu: %w", err)
	}
	l := &Library{b: b, devices: map[int]*Device{}}
	loaded[path] = l
	return l, nil
}

// Path returns the path the library was loaded from.
func (l *Library) Path() string { return l.b.path }

// DeviceCount returns the number of CUDA devices (0 when there is no device
// or driver).
func (l *Library) DeviceCount() int {
	n, err := l.b.deviceCount()
	if err != nil {
		return 0
	}
	return n
}

// Device returns the handle of device i, the same one on every call.
// Errors match ErrNoDevice when i is not a present device.
func (l *Library) Device(i int) (*Device, error) {
	n, err := l.b.deviceCount()
	if err != nil {
		return nil, fmt.Errorf("gpu: count devices: %w", err)
	}
	if i < 0 || i >= n {
		return nil, fmt.Errorf("gpu: device %d of %d: %w", i, n, ErrNoDevice)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	d, ok := l.devices[i]
	if !ok {
		d = &Device{lib: l, index: i, sem: semaphore.NewWeighted(1)}
		l.devices[i] = d
	}
	return d, nil
}

// Device is one CUDA device. Its lock serializes kernel work between
// callers; the wrappers do not take it themselves.
type Device struct {
	lib   *Library
	index int
	sem   *semaphore.Weighted
}

// Index returns the CUDA device index.
func (d *Device) Index() int { return d.index }

// Lock acquires the device's kernel lock, waiting until it is free or ctx
// is done (then it returns ctx's error and does not hold the lock).
func (d *Device) Lock(ctx context.Context) error {
	if err := d.sem.Acquire(ctx, 1); err != nil {
		return fmt.Errorf("gpu: lock device %d: %w", d.index, err)
	}
	return nil
}

// Unlock releases the kernel lock taken by Lock.
func (d *Device) Unlock() { d.sem.Release(1) }

// Properties describes a device.
type Properties struct {
	Name           string
	TotalMem       uint64 // bytes
	FreeMem        uint64 // bytes free when read, counting what the library's memory pool holds unused
	PoolFreeMem    uint64 // of FreeMem, what the pool holds unused: the most scratch its MSMs and transforms took at once, less what they hold now
	L2Bytes        uint64 // bytes of L2 cache
	Major, Minor   int    // compute capability
	Multiprocessor int    // number of SMs
	ClockKHz       int    // SM clock
	MemoryClockKHz int
	MemoryBusBits  int
}

// Properties reads the device's properties.
func (d *Device) Properties() (Properties, error) {
	p, err := d.lib.b.deviceProps(d.index)
	if err != nil {
		return Properties{}, fmt.Errorf("gpu: read properties: %w", err)
	}
	return p, nil
}
