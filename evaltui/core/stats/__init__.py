"""Statistics on paired runs. Every result is a frozen dataclass that echoes its inputs."""
