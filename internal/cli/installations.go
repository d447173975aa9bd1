package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/council-dev/council/internal/server"
	"github.com/council-dev/council/internal/store"
)

// NewCmdInstallations declares `council installations`: the GitHub App's installations that
// `council serve` knows, and their settings.
func NewCmdInstallations(f *Factory) *cobra.Command {
	var dbURL string
	cmd := &cobra.Command{
		Use:   "installations",
		Short: "The installations council serve knows: their spend this month and their settings",
	}
	cmd.PersistentFlags().StringVar(&dbURL, "database-url", "", "the server's database (default COUNCIL_DATABASE_URL, else sqlite://./council.db)")

	list := &cobra.Command{
		Use:   "list",
		Short: "List the installations: account, state, monthly budget, spend this month, drafts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd.Context(), f, dbURL, func(db *store.DB) error {
				ins, err := db.Installations(cmd.Context())
				if err != nil {
					return err
				}
				if len(ins) == 0 {
					fmt.Fprintln(f.Err, "council: no installations yet: council serve records them from GitHub's installation events and its first reviews")
					return nil
				}
				now := time.Now().UTC()
				month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
				tw := tabwriter.NewWriter(f.Out, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tACCOUNT\tSTATE\tMONTHLY BUDGET\tSPENT THIS MONTH\tDRAFTS")
				for _, in := range ins {
					spent, err := db.Spend(cmd.Context(), in.ID, month)
					if err != nil {
						return err
					}
					state, budget, drafts := "active", "server default", "server default"
					if in.Suspended {
						state = "suspended"
					}
					if in.Settings.MonthlyBudgetUSD > 0 {
						budget = fmt.Sprintf("$%.2f", in.Settings.MonthlyBudgetUSD)
					}
					if in.Settings.ReviewDrafts {
						drafts = "reviewed"
					}
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t$%.4f\t%s\n", in.ID, orDash(in.Account), state, budget, spent, drafts)
				}
				return tw.Flush()
			})
		},
	}

	var budget float64
	var drafts bool
	set := &cobra.Command{
		Use:   "set ID",
		Short: "Change an installation's settings: its monthly budget, whether drafts are reviewed",
		Example: `  council installations set 4242 --monthly-budget-usd 50
  council installations set 4242 --review-drafts=true --database-url postgres://council@db/council`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var id int64
			if _, err := fmt.Sscan(args[0], &id); err != nil || id <= 0 {
				return fmt.Errorf("installation id %q: must be a positive number (council installations list shows them)", args[0])
			}
			fl := cmd.Flags()
			if !fl.Changed("monthly-budget-usd") && !fl.Changed("review-drafts") {
				return fmt.Errorf("nothing to set: give --monthly-budget-usd or --review-drafts")
			}
			if budget < 0 {
				return fmt.Errorf("--monthly-budget-usd %v: must be 0 (the server's default) or more", budget)
			}
			return withStore(cmd.Context(), f, dbURL, func(db *store.DB) error {
				in, _, err := db.Installation(cmd.Context(), id)
				if err != nil {
					return err
				}
				s := in.Settings
				if fl.Changed("monthly-budget-usd") {
					s.MonthlyBudgetUSD = budget
				}
				if fl.Changed("review-drafts") {
					s.ReviewDrafts = drafts
				}
				if err := db.SetSettings(cmd.Context(), id, s); err != nil {
					return err
				}
				fmt.Fprintf(f.Err, "council: installation %d: monthly budget %s, drafts %s\n", id, budgetText(s.MonthlyBudgetUSD), draftsText(s.ReviewDrafts))
				return nil
			})
		},
	}
	set.Flags().Float64Var(&budget, "monthly-budget-usd", 0, "stop reviews for the rest of the month once they cost this much (0: the server's COUNCIL_MONTHLY_BUDGET_USD)")
	set.Flags().BoolVar(&drafts, "review-drafts", false, "review draft pull requests of this installation")
	cmd.AddCommand(list, set)
	return cmd
}

func budgetText(v float64) string {
	if v == 0 {
		return "the server's default"
	}
	return fmt.Sprintf("$%.2f", v)
}

func draftsText(b bool) string {
	if b {
		return "reviewed"
	}
	return "as the server says"
}

// withStore opens the server's database (never creating an empty SQLite file) for fn.
func withStore(ctx context.Context, f *Factory, url string, fn func(db *store.DB) error) error {
	if url == "" {
		url = f.Getenv("COUNCIL_DATABASE_URL")
	}
	if url == "" {
		url = server.DefaultDatabaseURL
	}
	// Reading the server's records must not create an empty database where its is not.
	if path, ok := strings.CutPrefix(url, "sqlite://"); ok {
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("no council serve database at %s: pass --database-url (or set COUNCIL_DATABASE_URL) to the server's", path)
		}
	}
	db, err := store.Open(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db)
}
