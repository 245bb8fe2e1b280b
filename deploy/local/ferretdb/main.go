// Command ferretdb runs an embedded FerretDB v1 (MongoDB wire protocol) with the SQLite backend.
//
// It exists because `go install github.com/FerretDB/FerretDB/cmd/ferretdb@v1.24.2` panics on the
// missing build/version/version.txt file; the embeddable package has no such requirement.
//
// Usage: ferretdb -listen-addr 127.0.0.1:27017 -sqlite-dir /path/to/data [-log-level info]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listenAddr := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on (host:port)")
	sqliteDir := flag.String("sqlite-dir", "data", "directory holding the SQLite databases (created if missing)")
	logLevel := flag.String("log-level", "info", "log level: debug, info, warn or error")
	flag.Parse()

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(os.Stderr, "invalid -log-level %q: %v\n", *logLevel, err)
		os.Exit(2)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	if err := run(*listenAddr, *sqliteDir, logger); err != nil {
		logger.Error("ferretdb failed", "error", err)
		os.Exit(1)
	}
}

func run(listenAddr, sqliteDir string, logger *slog.Logger) error {
	dir, err := filepath.Abs(sqliteDir)
	if err != nil {
		return err
	}
	if err = os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// The SQLite backend wants a "file:" URI of a directory, ending with a slash.
	u := url.URL{Scheme: "file", Path: strings.TrimSuffix(filepath.ToSlash(dir), "/") + "/"}

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: listenAddr},
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: u.String(),
	})
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	// The listener is bound by New, so this line means "accepting connections".
	// Printed whatever the log level is.
	fmt.Fprintf(os.Stderr, "FerretDB v1.24.2 (embedded, SQLite) listening: %s sqlite=%s pid=%d\n",
		f.MongoDBURI(), u.String(), os.Getpid())

	select {
	case err = <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	case <-ctx.Done():
	}

	fmt.Fprintln(os.Stderr, "FerretDB: signal received, shutting down")
	select {
	case err = <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	case <-time.After(15 * time.Second):
		return errors.New("shutdown timed out after 15s")
	}
	fmt.Fprintln(os.Stderr, "FerretDB: stopped")
	return nil
}
