"""A group administration bot as aiogram's documentation writes one: joiners welcomed from
chat_member updates (ChatMemberUpdatedFilter), and ban, mute and delete for the group's
admins, in reply to the message concerned."""
import asyncio
import logging
import sys
from os import getenv

from aiogram import Bot, Dispatcher, F, Router, html
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ChatMemberStatus, ParseMode
from aiogram.filters import IS_MEMBER, IS_NOT_MEMBER, ChatMemberUpdatedFilter, Command
from aiogram.types import ChatMemberUpdated, ChatPermissions, Message

router = Router()
router.message.filter(F.chat.type.in_({"group", "supergroup"}))


@router.chat_member(ChatMemberUpdatedFilter(IS_NOT_MEMBER >> IS_MEMBER))
async def welcome(event: ChatMemberUpdated, bot: Bot) -> None:
    await bot.send_message(event.chat.id, f"Welcome, {html.bold(event.new_chat_member.user.full_name)}!")


@router.chat_member(ChatMemberUpdatedFilter(IS_MEMBER >> IS_NOT_MEMBER))
async def farewell(event: ChatMemberUpdated, bot: Bot) -> None:
    await bot.send_message(event.chat.id, f"{html.quote(event.old_chat_member.user.full_name)} left.")


async def admin_reply(message: Message, bot: Bot) -> Message | None:
    if message.reply_to_message is None:
        await message.reply("Reply to a message of the member concerned.")
        return None
    member = await bot.get_chat_member(message.chat.id, message.from_user.id)
    if member.status not in (ChatMemberStatus.CREATOR, ChatMemberStatus.ADMINISTRATOR):
        await message.reply("Only the group's admins may do that.")
        return None
    return message.reply_to_message


@router.message(Command("ban"))
async def ban(message: Message, bot: Bot) -> None:
    if target := await admin_reply(message, bot):
        await bot.ban_chat_member(message.chat.id, target.from_user.id)
        await message.reply(f"Banned {html.quote(target.from_user.full_name)}.")


@router.message(Command("mute"))
async def mute(message: Message, bot: Bot) -> None:
    if target := await admin_reply(message, bot):
        await bot.restrict_chat_member(message.chat.id, target.from_user.id, ChatPermissions(can_send_messages=False))
        await message.reply(f"Muted {html.quote(target.from_user.full_name)}.")


@router.message(Command("del"))
async def delete(message: Message, bot: Bot) -> None:
    if target := await admin_reply(message, bot):
        await target.delete()
        await message.reply("Deleted.")


@router.message(Command("admins"))
async def admins(message: Message, bot: Bot) -> None:
    administrators = await bot.get_chat_administrators(message.chat.id)
    count = await bot.get_chat_member_count(message.chat.id)
    names = sorted(a.user.username for a in administrators)
    await message.reply(f"Admins: {', '.join(names)} of {count} members")


async def main() -> None:
    session = AiohttpSession(api=TelegramAPIServer.from_base(getenv("TELEGRAM_API")))
    bot = Bot(token=getenv("BOT_TOKEN"), session=session, default=DefaultBotProperties(parse_mode=ParseMode.HTML))
    dp = Dispatcher()
    dp.include_router(router)
    await dp.start_polling(bot, allowed_updates=dp.resolve_used_update_types())


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, stream=sys.stdout)
    asyncio.run(main())
