package cli

import (
	"fmt"

	"github.com/council-dev/council/internal/provider"
	"github.com/council-dev/council/internal/provider/anthropic"
	"github.com/council-dev/council/internal/provider/openai"
)

// newSDKClient makes a client on the provider's official SDK.
func newSDKClient(name string, s ProviderSettings) (provider.Client, error) {
	switch name {
	case "anthropic":
		return anthropic.New(anthropic.Options{APIKey: s.APIKey, BaseURL: s.BaseURL, HTTPClient: s.HTTPClient, KeyEnv: s.KeyEnv}), nil
	case "openai":
		return openai.New(openai.Options{APIKey: s.APIKey, BaseURL: s.BaseURL, HTTPClient: s.HTTPClient, KeyEnv: s.KeyEnv}), nil
	default:
		return nil, fmt.Errorf("unknown provider %q (allowed: %s)", name, "anthropic, openai")
	}
}
