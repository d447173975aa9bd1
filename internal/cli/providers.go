package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/council-dev/council/internal/config"
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
		if err := checkOpenAIAPI(s.API); err != nil {
			return nil, err
		}
		return openai.New(openai.Options{APIKey: s.APIKey, BaseURL: s.BaseURL, HTTPClient: s.HTTPClient, KeyEnv: s.KeyEnv, API: openai.API(s.API)}), nil
	default:
		return nil, fmt.Errorf("unknown provider %q (allowed: %s)", name, "anthropic, openai")
	}
}

// checkOpenAIAPI refuses an OpenAI API council does not speak. openai_api: in .council.yaml is
// checked with the config; what is left to refuse came from the environment.
func checkOpenAIAPI(api string) error {
	if api != "" && !slices.Contains(config.OpenAIAPIs, api) {
		return fmt.Errorf("%s=%q: must be one of %s, or unset to choose by the base URL", openAIAPIEnv, api, strings.Join(config.OpenAIAPIs, ", "))
	}
	return nil
}
