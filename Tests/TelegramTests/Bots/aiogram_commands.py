"""A command bot as aiogram's documentation writes one: a Router with Command filters,
arguments from CommandObject, and the command menu set on start-up."""
import asyncio
import logging
import sys
from os import getenv

from aiogram import Bot, Dispatcher, Router, html
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ParseMode
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import BotCommand, Message

router = Router()


@router.message(CommandStart())
async def start(message: Message) -> None:
    await message.answer(f"Hello, {html.bold(message.from_user.full_name)}! Try /caps or /sum.")


@router.message(Command("caps"))
async def caps(message: Message, command: CommandObject) -> None:
    if not command.args:
        await message.reply("Usage: /caps <text>")
        return
    await message.reply(html.quote(command.args.upper()))


@router.message(Command("sum"))
async def add(message: Message, command: CommandObject) -> None:
    try:
        total = sum(int(argument) for argument in (command.args or "").split())
    except ValueError:
        await message.reply("Usage: /sum <numbers>")
        return
    await message.reply(f"The sum is <b>{total}</b>")


@router.message(Command("menu"))
async def menu(message: Message, bot: Bot) -> None:
    commands = await bot.get_my_commands()
    await message.reply("Commands: " + ", ".join("/" + c.command for c in commands))


async def on_startup(bot: Bot) -> None:
    await bot.set_my_commands([
        BotCommand(command="start", description="say hello"), BotCommand(command="caps", description="shout"),
        BotCommand(command="sum", description="add numbers"), BotCommand(command="menu", description="list the commands"),
    ])


async def main() -> None:
    session = AiohttpSession(api=TelegramAPIServer.from_base(getenv("TELEGRAM_API")))
    bot = Bot(token=getenv("BOT_TOKEN"), session=session, default=DefaultBotProperties(parse_mode=ParseMode.HTML))
    dp = Dispatcher()
    dp.include_router(router)
    dp.startup.register(on_startup)
    await dp.start_polling(bot)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, stream=sys.stdout)
    asyncio.run(main())
