"""toolwire inside other programs: gateways and frameworks that route tool results.

- ``toolwire.integrations.litellm``: a LiteLLM callback (``pip install
  'toolwire[litellm]'``) that gives each tool result what the routed model reads and
  call ids that pair (``docs/litellm.md``).

Each integration imports its host program; this package imports none of them.
"""
