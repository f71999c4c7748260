"""A group administration bot as python-telegram-bot's examples write one (chatmemberbot.py
for the greetings): welcomes joiners from chat_member updates, and for the group's admins
bans, mutes and deletes, each in reply to the message concerned."""
import logging
import os
from typing import Optional

from telegram import ChatMember, ChatMemberUpdated, ChatPermissions, Update
from telegram.constants import ChatMemberStatus
from telegram.ext import Application, ChatMemberHandler, CommandHandler, ContextTypes, MessageHandler, filters

logging.basicConfig(format="%(asctime)s - %(name)s - %(levelname)s - %(message)s", level=logging.INFO)


def extract_status_change(chat_member_update: ChatMemberUpdated) -> Optional[tuple[bool, bool]]:
    status_change = chat_member_update.difference().get("status")
    old_is_member, new_is_member = chat_member_update.difference().get("is_member", (None, None))
    if status_change is None:
        return None
    old_status, new_status = status_change
    was_member = old_status in [ChatMember.MEMBER, ChatMember.OWNER, ChatMember.ADMINISTRATOR] or (
        old_status == ChatMember.RESTRICTED and old_is_member is True)
    is_member = new_status in [ChatMember.MEMBER, ChatMember.OWNER, ChatMember.ADMINISTRATOR] or (
        new_status == ChatMember.RESTRICTED and new_is_member is True)
    return was_member, is_member


async def greet_chat_members(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    result = extract_status_change(update.chat_member)
    if result is None:
        return
    was_member, is_member = result
    member_name = update.chat_member.new_chat_member.user.mention_html()
    if not was_member and is_member:
        await update.effective_chat.send_message(f"{member_name} joined. Welcome!", parse_mode="HTML")
    elif was_member and not is_member:
        await update.effective_chat.send_message(f"{member_name} is no longer with us.", parse_mode="HTML")


async def is_admin(update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
    member = await context.bot.get_chat_member(update.effective_chat.id, update.effective_user.id)
    return member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)


async def target(update: Update, context: ContextTypes.DEFAULT_TYPE):
    if update.message.reply_to_message is None:
        await update.message.reply_text("Reply to a message of the member concerned.")
        return None
    if not await is_admin(update, context):
        await update.message.reply_text("Only the group's admins may do that.")
        return None
    return update.message.reply_to_message


async def ban(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    message = await target(update, context)
    if message:
        await context.bot.ban_chat_member(update.effective_chat.id, message.from_user.id)
        await update.message.reply_text(f"Banned {message.from_user.first_name}.")


async def mute(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    message = await target(update, context)
    if message:
        await context.bot.restrict_chat_member(
            update.effective_chat.id, message.from_user.id, permissions=ChatPermissions(can_send_messages=False))
        await update.message.reply_text(f"Muted {message.from_user.first_name}.")


async def delete(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    message = await target(update, context)
    if message:
        await message.delete()
        await update.message.reply_text("Deleted.")


async def admins(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    administrators = await context.bot.get_chat_administrators(update.effective_chat.id)
    count = await context.bot.get_chat_member_count(update.effective_chat.id)
    names = sorted(a.user.username for a in administrators)
    await update.message.reply_text(f"Admins: {', '.join(names)} of {count} members")


def main() -> None:
    base = os.environ["TELEGRAM_API"]
    application = (
        Application.builder().token(os.environ["BOT_TOKEN"]).base_url(base + "/bot").base_file_url(base + "/file/bot").build()
    )
    application.add_handler(ChatMemberHandler(greet_chat_members, ChatMemberHandler.CHAT_MEMBER))
    application.add_handler(CommandHandler("ban", ban, filters.ChatType.GROUPS))
    application.add_handler(CommandHandler("mute", mute, filters.ChatType.GROUPS))
    application.add_handler(CommandHandler("del", delete, filters.ChatType.GROUPS))
    application.add_handler(CommandHandler("admins", admins, filters.ChatType.GROUPS))
    application.run_polling(allowed_updates=Update.ALL_TYPES)


if __name__ == "__main__":
    main()
