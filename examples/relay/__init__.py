"""A chat-and-move relay on the asyncio adapter, with its Godot 4 client (client.gd)."""
