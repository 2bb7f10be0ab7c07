"""Each rule system's sub-app: `storymaster <system> ...`."""
