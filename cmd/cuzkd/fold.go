package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/cuzk-go/cuzk/daemon/enginebackend"
	"github.com/cuzk-go/cuzk/filecoin/paramcache"
	"github.com/cuzk-go/cuzk/filecoin/proofs"
	"github.com/cuzk-go/cuzk/gpu"
	"github.com/cuzk-go/cuzk/internal/progress"
	"github.com/cuzk-go/cuzk/prover"
)

// runFold makes the fold overlays of the circuits named on the command line, one after the
// other, in the fold directory (--fold-dir, else srs.fold_dir; made if missing), from the
// parameters of the cache directory chosen as `run` chooses it. An overlay that already opens
// over its parameters file and fits its circuit is kept unless --force. Progress goes to
// stderr; SIGINT or SIGTERM stops the fold under way, which leaves no file.
func runFold(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("fold", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprint(fl.Output(), `usage: cuzkd fold [flags] CIRCUIT...

Folds the parameters of each circuit id (porep-32g, wpost-32g, winning-32g, snap-32g, …): C
folded into L and H put on the quotient's coset, an overlay of L' and K beside the parameters
file (24 GiB at a 32 GiB PoRep), with which the daemon proves the same proof bytes with no C·w
and four transforms a partition instead of six once srs.fold_dir names its directory. The fold
is two transforms over H's points: seconds for 2 KiB circuits; at 32 GiB about 8 minutes on a
GPU (42 GiB of its memory, without the daemon's kernel lock) and hours on the CPU. It holds
about 79 GiB of host memory at a 32 GiB PoRep (61 GiB with the GPU's transforms), so run it
while the daemon is not proving.

flags:
`)
		fl.PrintDefaults()
	}
	configPath := fl.String("config", "", "TOML configuration file (default "+defaultConfigPath+" when it exists)")
	paramDir := fl.String("param-cache", "", "directory of the v28 .params/.vk files (overrides srs.param_cache and $"+paramcache.DirEnv+")")
	foldDir := fl.String("fold-dir", "", "directory of the fold overlays (overrides srs.fold_dir)")
	force := fl.Bool("force", false, "fold again where a fitting overlay exists")
	device := fl.String("device", "auto", "where to run the transforms over H's points: auto (the first GPU of gpus.devices when one is found, else the CPU), cpu, or gpu")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() == 0 {
		fl.Usage()
		return errors.New("fold: name at least one circuit id")
	}
	cfg, _, err := loadConfig(*configPath)
	if err != nil {
		return err
	}
	if *foldDir != "" {
		cfg.SRS.FoldDir = *foldDir
	}
	if cfg.SRS.FoldDir == "" {
		return errors.New("fold: no fold directory: set srs.fold_dir in the configuration or pass --fold-dir")
	}
	pis := make([]proofs.ProofInfo, fl.NArg())
	for i, id := range fl.Args() {
		if pis[i], err = enginebackend.CircuitProofInfo(id); err != nil {
			return fmt.Errorf("fold: %w", err)
		}
	}
	var opts []prover.FoldOption
	switch *device {
	case "cpu":
	case "auto", "gpu":
		devs, err := selectGPUs(cfg.GPUs.Devices, false, slog.New(slog.NewTextHandler(stderr, nil)))
		if err != nil {
			return fmt.Errorf("fold: %w", err)
		}
		if len(devs) > 0 {
			opts = append(opts, prover.FoldWithDFT(devs[0].G1DFT))
		} else if *device == "gpu" {
			return errors.New("fold: --device gpu: no GPU found")
		}
	default:
		return fmt.Errorf("fold: --device %q: want auto, cpu or gpu", *device)
	}
	if err := os.MkdirAll(cfg.SRS.FoldDir, 0o755); err != nil {
		return fmt.Errorf("fold: %w", err)
	}
	dir := paramCacheDir(cfg, *paramDir)
	cache, err := paramcache.Open(paramcache.WithDir(dir))
	if err != nil {
		return fmt.Errorf("parameter cache %s: %w", dir, err)
	}
	for i, id := range fl.Args() {
		if err := foldCircuit(ctx, id, pis[i], cache, cfg.SRS.FoldDir, *force, stdout, stderr, opts...); err != nil {
			return err
		}
	}
	return nil
}

// foldCircuit makes circuit id's fold overlay in dir with opts, unless one there fits (and not
// force).
func foldCircuit(ctx context.Context, id string, pi proofs.ProofInfo, cache *paramcache.Cache, dir string, force bool, stdout, stderr io.Writer, opts ...prover.FoldOption) error {
	if !force {
		base, err := pi.OpenParameters(ctx, cache, prover.Unchecked)
		if err != nil {
			return fmt.Errorf("fold %s: %w", id, err)
		}
		folded, err := pi.OpenFold(base, dir, prover.Unchecked)
		if err == nil {
			err = errors.Join(folded.Close(), base.Close())
			if err != nil {
				return fmt.Errorf("fold %s: %w", id, err)
			}
			fmt.Fprintf(stdout, "%s: %s fits its parameters and circuit: kept (--force folds again)\n", id, filepath.Join(dir, pi.FoldFile()))
			return nil
		}
		if cerr := base.Close(); cerr != nil {
			return fmt.Errorf("fold %s: %w", id, cerr)
		}
		if !errors.Is(err, proofs.ErrNoFold) {
			fmt.Fprintf(stderr, "%s: folding again: %v\n", id, err)
		}
	}
	start := time.Now()
	stages := progress.NewStages(stderr)
	path, err := pi.FoldParameters(ctx, cache, dir, append(opts, prover.FoldWithProgress(stages.Report))...)
	stages.Done()
	if errors.Is(err, gpu.ErrOutOfMemory) {
		return fmt.Errorf("fold %s: %w (the GPU's transforms take up to 336 bytes of device memory a point of the domain, "+
			"42 GiB at porep-32g: run it while the daemon does not prove on that GPU, or pass --device cpu)", id, err)
	}
	if err != nil {
		return fmt.Errorf("fold %s: %w", id, err)
	}
	fmt.Fprintf(stdout, "%s: folded into %s in %s\n", id, path, time.Since(start).Round(time.Millisecond))
	return nil
}
