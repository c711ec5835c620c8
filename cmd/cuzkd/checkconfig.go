package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/pelletier/go-toml/v2"

	"github.com/cuzk-go/cuzk/daemon"
)

func runCheckConfig(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("check-config", flag.ContinueOnError)
	fl.SetOutput(stderr)
	configPath := fl.String("config", "", "TOML configuration file (default "+defaultConfigPath+" when it exists)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	cfg, path, err := loadConfig(*configPath)
	if err != nil {
		return err
	}
	if path == "" {
		path = "(defaults)"
	}
	for _, w := range cfg.Warnings() {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	fmt.Fprintf(stdout, "# effective configuration of %s\n", path)
	return printConfig(stdout, cfg)
}

// printConfig writes cfg as TOML that LoadConfig reads back to the same configuration.
func printConfig(w io.Writer, cfg daemon.Config) error {
	b, err := toml.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("encode configuration: %w", err)
	}
	_, err = w.Write(b)
	return err
}
